/**
 * A usage error about a one-dash token names it as typed (R164-3): commander
 * split an unknown `-chat` into `-c -hat` and said `unknown option '-hat'`,
 * and a boolean flag given a value (`-q=1`, `-dry_run=1`) was an unknown
 * option `'-=1'` / `'--dry-run=1'`. Bundles of known short flags and
 * `-x value` spellings still read as before.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, runScout, tempDir } from "../support/cli.ts";

const USAGE_HINT = "(run with --help for usage)\n";

Deno.test("unknown one-dash tokens and values given to boolean flags are named as typed (R164-3)", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path }, cwd: t.path };
  const cases: [string[], string][] = [
    [["llm", "prov", "-chat", "X.chat"], "unknown option '-chat'"],
    [["system", "clean", "-flow"], "unknown option '-flow'"],
    [["chat", "prompt", "-q=1", "f.chat"], "option '-q=1' does not take a value"],
    [["system", "clean", "-format=x"], "unknown option '-format=x'"],
    [["system", "clean", "-dry_run=1"], "option '-dry_run=1' does not take a value"],
    [["llm", "ask", "--dry-run=1", "hi"], "option '--dry-run=1' does not take a value"],
    [["llm", "ask", "-zq", "hi"], "unknown option '-zq'"],
  ];
  for (const [args, message] of cases) {
    const r = await runMain(args, o);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr, `scout-ai: ${message}\n${USAGE_HINT}`, args.join(" "));
  }
});

Deno.test("a real process names -chat as typed, not '-hat' (R164-3)", async () => {
  await using t = await tempDir();
  const r = await runScout(["llm", "prov", "-chat", "X.chat"], {
    env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path },
    cwd: t.path,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `scout-ai: unknown option '-chat'\n${USAGE_HINT}`);
});

Deno.test("bundles of known short flags, -Okey=value, -m=x and -5 still read as before (R164-3)", async () => {
  await using t = await tempDir();
  const o = { env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path }, cwd: t.path };
  for (
    const args of [
      ["llm", "ask", "-d", "-mgpt-4", "hi"],
      ["llm", "ask", "-d", "-Otemperature=0", "hi"],
      ["llm", "ask", "-d", "-m=x", "hi"],
      ["llm", "ask", "-dm", "x", "hi"],
    ]
  ) {
    const r = await runMain(args, o);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "user:\n\nhi\n", args.join(" "));
  }
  const word = await runMain(["llm", "ask", "-d", "-5", "degrees"], o);
  assert.equal(word.stdout, "user:\n\n-5 degrees\n", word.stderr);
  // a Scout refusal reached through a bundle is still that refusal
  const dirty = await runMain(["system", "clean", "-do30d"], o);
  assert.equal(dirty.code, 2);
  assert.match(dirty.stderr, /^scout-ai: --dirty is not supported/);
});
