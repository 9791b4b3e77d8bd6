/**
 * `--dry-run` and `chat prompt` compile the chat, and compiling runs its
 * `task:` / `exec_task:` lines — workflow code, from the chat's `workflows/`
 * folder too: their help says so, as `chat compile --help` does (R97-3).
 */
import assert from "node:assert/strict";
import { runMain } from "../support/cli.ts";

for (const cmd of [["llm", "ask"], ["agent", "ask"]]) {
  Deno.test(`${cmd.join(" ")} --help: --dry-run says compiling runs task:/exec_task: lines (R97-3)`, async () => {
    const r = await runMain([...cmd, "--help"]);
    assert.equal(r.code, 0, r.stderr);
    const text = r.stdout.replace(/\s+/g, " ");
    assert.match(
      text,
      /--dry-run .*ask nothing.*runs its task:\/exec_task: lines \(workflow code\)/,
    );
  });
}

Deno.test("chat prompt --help says compiling runs task:/exec_task: lines (R97-3)", async () => {
  const r = await runMain(["chat", "prompt", "--help"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout.replace(/\s+/g, " "),
    /Compiling runs .*task:\/exec_task: lines \(workflow code/,
  );
});
