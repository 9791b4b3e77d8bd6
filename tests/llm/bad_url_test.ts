/**
 * A url that is no http(s) URL fails when the settings are resolved (R142-3):
 * a config error naming where it was written, before any request — never
 * "Provider … sent a reply that cannot be read" with a snapshot of a request
 * that was not sent, nor four attempts of one that could not leave.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";

for (const backend of ["openai", "anthropic", "ollama"]) {
  Deno.test(`${backend}: -O url=http://127.0.0.1:99999 fails at once as a config error, no retry, no snapshot`, async () => {
    await using d = await tempDir();
    const home = join(d.path, "home");
    const env = { SCOUT_HOME: home, HOME: d.path, NO_COLOR: "1" };
    const args = ["llm", "ask", "-b", backend, "-O", "key=k", "-O", "url=http://127.0.0.1:99999"];
    const started = Date.now();
    const r = await runMain([...args, "hi"], { env, cwd: d.path });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stderr,
      'scout-ai: Invalid url "http://127.0.0.1:99999" (not a URL; expected an http:// or https:// URL)\n',
    );
    assert.ok(Date.now() - started < 3000, "no retries");
    assert.equal(existsSync(join(home, "tmp", "ask")), false, "no snapshot");
  });
}

Deno.test("a bad url in an endpoint file names the file and line", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  const file = join(home, "etc", "AI", "bad.yaml");
  writeFileSync(file, "backend: openai\nkey: k\nurl: http://1e308.1e308:1e308\n");
  const env = { SCOUT_HOME: home, HOME: d.path, NO_COLOR: "1" };
  const r = await runMain(["llm", "ask", "-e", "bad", "hi"], { env, cwd: d.path });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    'scout-ai: Invalid url "http://1e308.1e308:1e308" (not a URL; expected an http:// or https:// URL)' +
      ` (${file}:3)\n`,
  );
  assert.equal(existsSync(join(home, "tmp", "ask")), false, "no snapshot");
});
