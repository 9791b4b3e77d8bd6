/**
 * Two error lines in the house form (R94-11): a broken `etc/prices.yaml`
 * says `(<file>:<line>)`, and `config get` of an `env:VAR` entry whose
 * variable is unset says so (never printing a value).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const EXAMPLE = join(ROOT, "fixtures", "provenance", "example");

Deno.test("a broken prices.yaml: one line naming file:line (R94-11a)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  mkdirSync(join(home, "etc"), { recursive: true });
  const file = join(home, "etc", "prices.yaml");
  writeFileSync(file, "a: 1\ngpt: [\n");
  const r = await runMain(
    ["llm", "prov", join(EXAMPLE, "session.chat"), "-J", join(EXAMPLE, "jobs")],
    { env: { SCOUT_HOME: home, NO_COLOR: "1" }, cwd: d.path },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^scout-ai: Cannot parse price file: [^\n]+ \(/);
  // the parser places an unclosed `[` at the end of the text: line 3
  assert.ok(r.stderr.endsWith(` (${file}:3)\n`), r.stderr);
  assert.doesNotMatch(r.stderr, /column|\^/);
});

Deno.test("config get of an env: entry whose variable is unset names the variable (R94-11b)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  mkdirSync(join(home, "etc"), { recursive: true });
  const file = join(home, "etc", "config");
  writeFileSync(file, "model gpt-x\nkey env:MY_OPENAI_KEY openai\n");
  const env = { SCOUT_HOME: home, HOME: d.path, NO_COLOR: "1" };
  const r = await runMain(["config", "get", "key", "openai"], { env, cwd: d.path });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    `scout-ai: "key" is read from the environment variable MY_OPENAI_KEY, which is not set ` +
      `(${file}:2)\n`,
  );
  const set = await runMain(["config", "get", "key", "openai"], {
    env: { ...env, MY_OPENAI_KEY: "sk-secret-value-123456" },
    cwd: d.path,
  });
  assert.equal(set.code, 0, set.stderr);
  assert.doesNotMatch(set.stdout + set.stderr, /sk-secret/);
  const none = await runMain(["config", "get", "nothing"], { env, cwd: d.path });
  assert.equal(none.stderr, 'scout-ai: Not set: "nothing"\n');
});
