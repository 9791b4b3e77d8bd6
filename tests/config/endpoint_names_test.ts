/**
 * Which names can name an endpoint (R162-2): any one file name, as Ruby's
 * `Scout.etc.AI[name]` takes it (`🤖モデル`, `Müller`), but not a path, a
 * hidden file or control characters; and a name the lookup refuses is never
 * offered as "did you mean".
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findEndpointFile, loadEndpoint } from "../../src/config/endpoints.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

Deno.test("an endpoint with a non-ASCII name is found and asked, as in Ruby (R162-2)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const home = join(d.path, "home");
  const ai = join(home, "etc", "AI");
  await Deno.mkdir(ai, { recursive: true });
  for (const name of ["🤖モデル", "Müller bot"]) {
    await Deno.writeTextFile(
      join(ai, `${name}.yaml`),
      `backend: openai\nmodel: m-${name}\nurl: ${srv.url}\nkey: sk-x\n`,
    );
  }
  const env = { SCOUT_HOME: home, HOME: d.path };
  srv.script({ text: "hello" });
  const r = await runMain(["llm", "ask", "-e", "🤖モデル", "--no-cache", "hi"], {
    env,
    cwd: d.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /hello/);
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0]!.body.model, "m-🤖モデル");
  assert.equal(findEndpointFile("Müller bot", { cwd: d.path, env }), join(ai, "Müller bot.yaml"));
  // config list describes it by its settings, not by a lookup error
  const list = await runMain(["config", "list"], { env, cwd: d.path });
  assert.equal(list.code, 0, list.stderr);
  assert.doesNotMatch(list.stdout, /Endpoint not found/);
  assert.match(list.stdout, /🤖モデル/);
});

Deno.test("a path, a hidden name or control characters are refused, saying why, and never suggested (R162-2)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const ai = join(home, "etc", "AI");
  await Deno.mkdir(ai, { recursive: true });
  // reachable through the names refused: etc/x.yaml by "../x", a hidden file by ".hid"
  await Deno.writeTextFile(join(home, "etc", "x.yaml"), "backend: openai\n");
  await Deno.writeTextFile(join(ai, ".hid.yaml"), "backend: openai\n");
  await Deno.writeTextFile(join(ai, "nan\\o.yaml"), "backend: openai\n");
  const opts = { cwd: d.path, env: { SCOUT_HOME: home } };
  const cases: Array<[string, string]> = [
    ["../x", 'cannot hold "/" or "\\"'],
    ["nan\\o", 'cannot hold "/" or "\\"'],
    [".hid", 'cannot start with "."'],
    ["..", 'cannot start with "."'],
    ["ep\0x", "cannot hold control characters"],
  ];
  for (const [name, why] of cases) {
    assert.equal(findEndpointFile(name, opts), null, name);
    await assert.rejects(() => loadEndpoint(name, opts), (e) => {
      assert.ok(isScoutError(e, "endpoint_not_found"), String(e));
      assert.ok(
        e.message.includes(`: an endpoint name is one file name, so it ${why} (searched `),
        e.message,
      );
      assert.doesNotMatch(e.message, /did you mean|make one as/);
      return true;
    });
  }
  // a near name the lookup would refuse is not offered: "nan\o" is listed, never found
  await assert.rejects(() => loadEndpoint("nano", opts), (e) => {
    assert.ok(isScoutError(e, "endpoint_not_found"));
    assert.doesNotMatch(e.message, /did you mean/);
    return true;
  });
});
