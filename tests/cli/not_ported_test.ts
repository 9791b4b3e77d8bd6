/**
 * Scout's `llm md`, `llm word`, `llm server` and `workflow prov` are not
 * ported: each says so in one line on stderr, with what to use instead, and
 * exits 2 — not commander's `unknown command` (R158-7). Hidden: neither the
 * groups' help nor a misspelling's suggestion names them.
 */
import assert from "node:assert/strict";
import { homeIn, runMain, runScout, tempDir } from "../support/cli.ts";

const INSTEAD: Record<string, RegExp> = {
  "llm md": /chat parse FILE --json/,
  "llm word": /chat parse FILE --json/,
  "llm server": /llm ask -c FILE/,
  "workflow prov": /llm prov JOB/,
};

Deno.test("llm md|word|server and workflow prov say they are not ported and what to use, exit 2 (R158-7)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path, NO_COLOR: "1" } };
  for (const [cmd, instead] of Object.entries(INSTEAD)) {
    for (const extra of [[], ["some.chat", "--last"], ["--help"]]) {
      const r = await runMain([...cmd.split(" "), ...extra], o);
      assert.equal(r.code, 2, cmd);
      assert.equal(r.stdout, "", cmd);
      const lines = r.stderr.split("\n").filter((l) => l !== "");
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, new RegExp(`^scout-ai: '${cmd}' of Scout is not ported: `));
      assert.match(lines[0]!, instead);
    }
  }
  const sub = await runScout(["workflow", "prov", "x"], o); // the real program, too
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /^scout-ai: 'workflow prov' of Scout is not ported: .*llm prov JOB/);
  for (const group of ["llm", "workflow"]) {
    const help = await runMain([group, "--help"], o);
    assert.doesNotMatch(help.stdout, /^\s+(md|word|server|prov \[args)/m, group);
  }
});
