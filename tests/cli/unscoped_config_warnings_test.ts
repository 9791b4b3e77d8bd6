/**
 * What older scout-ai wrote and this one reads by the Ruby rules (R103-2, -3,
 * -5): an `etc/config` entry without a scope, a chat's `config:` line without
 * one, a registry's unquoted `on:` or `description: no`. The reading is kept;
 * each is named once on stderr with its file and line and the fix, stdout is
 * the same, and the scoped or quoted form says nothing. Real `scout-ai`
 * subprocesses against the loopback provider.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const KEY = "sk-cfgwarn-SECRET-0103";

/** A Scout home with `etc/config` holding `configText`, and the provider. */
async function setup(configText: string) {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: "pong" }) });
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  const config = join(home, "etc", "config");
  await Deno.writeTextFile(config, configText);
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: KEY };
  const ask = (args: string[]) =>
    runScout(["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, ...args], {
      env,
      cwd: dir.path,
    });
  return {
    dir,
    srv,
    config,
    env,
    ask,
    models: () => srv.requests.map((r) => r.body.model),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("an etc/config entry without a scope: each ask names it once (file:line, the fix); stdout unchanged", async () => {
  await using s = await setup("# old\nmodel from-config\nmax_tool_rounds 2\n");
  const r = await s.ask(["hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "pong\n");
  assert.notEqual(s.models()[0], "from-config"); // the Ruby rule kept
  const said = r.stderr.split(`${s.config}:2: the entry "model" has no scope`).length - 1;
  assert.equal(said, 1, r.stderr);
  assert.ok(
    r.stderr.includes(
      '"scout-ai config set model from-config ask && scout-ai config unset model"',
    ),
    r.stderr,
  );
  assert.ok(r.stderr.includes(`${s.config}:3: the entry "max_tool_rounds" has no scope`));
  assert.match(r.stderr, /^scout-ai: warning: /m);
  // --log 6 silences warnings
  const quiet = await s.ask(["--log", "6", "hi"]);
  assert.equal(quiet.stdout, "pong\n");
  assert.ok(!quiet.stderr.includes("has no scope"), quiet.stderr);
  // config list marks it; a scoped entry is neither warned about nor marked
  const list = await runScout(["config", "list"], { env: s.env, cwd: s.dir.path });
  assert.match(list.stdout, /model\s+from-config\s+\(no scope: read by nothing\)/);
  await Deno.writeTextFile(s.config, "model from-config ask\n");
  const scoped = await s.ask(["hi"]);
  assert.equal(scoped.stdout, "pong\n");
  assert.equal(scoped.stderr, "");
  assert.equal(s.models().at(-1), "from-config");
  const listed = await runScout(["config", "list"], { env: s.env, cwd: s.dir.path });
  assert.ok(!listed.stdout.includes("read by nothing"), listed.stdout);
});

Deno.test("a secret without a scope is named without its value; config get with scopes says why it is unset", async () => {
  await using s = await setup(`key ${KEY}\n`);
  const r = await runScout(["config", "get", "key", "openai"], { env: s.env, cwd: s.dir.path });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.ok(r.stderr.includes(`${s.config}:1: the entry "key" has no scope`), r.stderr);
  assert.ok(r.stderr.includes('"scout-ai config set key VALUE openai'), r.stderr);
  assert.ok(!r.stderr.includes(KEY));
});

Deno.test("a chat's config: line without a scope: continuing the chat names its file and line", async () => {
  await using s = await setup("");
  const chat = join(s.dir.path, "c.chat");
  await Deno.writeTextFile(chat, "config: model chat-model\n\nuser: hi\n\nassistant: hello\n");
  const r = await s.ask(["-c", chat, "-o", chat, "again"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "pong\n");
  assert.notEqual(s.models()[0], "chat-model"); // the Ruby rule kept
  const said = r.stderr.split(`${chat}:1: "config: model chat-model" has no scope`).length - 1;
  assert.equal(said, 1, r.stderr);
  assert.ok(r.stderr.includes('"config: model chat-model ask"'), r.stderr);
  await Deno.writeTextFile(chat, "config: model chat-model ask\n\nuser: hi\n");
  const scoped = await s.ask(["-c", chat, "-o", chat, "again"]);
  assert.equal(scoped.stdout, "pong\n");
  assert.equal(scoped.stderr, "");
  assert.equal(s.models().at(-1), "chat-model");
});

Deno.test("a registry's unquoted on: and description: no are named with file:line; quoted ones are not", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  await Deno.mkdir(join(kb, "config"), { recursive: true });
  const registry = join(kb, "config", "registry");
  const parents = join(ROOT, "fixtures", "kb", "family", "parents");
  await Deno.writeTextFile(
    registry,
    `---\non:\n- ${parents}\n- description: no\nkb1:\n- ${parents}\n- description: "no"\n`,
  );
  const env = { SCOUT_HOME: join(d.path, "home") };
  const list = await runScout(["kb", "list", kb], { env, cwd: d.path });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^true\s/m); // the Ruby reading kept
  assert.ok(!list.stdout.includes("warning"));
  assert.ok(
    list.stderr.includes(`${registry}:2: the database name on is unquoted`) &&
      list.stderr.includes('quote it: "on":'),
    list.stderr,
  );
  assert.ok(
    list.stderr.includes(`${registry}:4: the description of "true", no, is unquoted`) &&
      list.stderr.includes('quote it: description: "no"'),
    list.stderr,
  );
  assert.equal(list.stderr.split("\n").filter((l) => l !== "").length, 2, list.stderr);
  await Deno.writeTextFile(registry, `---\n"on":\n- ${parents}\n- description: "no"\n`);
  const quoted = await runScout(["kb", "list", kb], { env, cwd: d.path });
  assert.match(quoted.stdout, /^on\s/m);
  assert.equal(quoted.stderr, "");
});

Deno.test("the fix command of an unscoped entry is shell-quoted: a url's & stays in the value (R107-5)", async () => {
  await using s = await setup("model a&b;$x\n");
  const r = await s.ask(["hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stderr.includes(
      `"scout-ai config set model 'a&b;$x' ask && scout-ai config unset model"`,
    ),
    r.stderr,
  );
});
