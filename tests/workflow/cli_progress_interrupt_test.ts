/**
 * `workflow task` at a real terminal (a pty) stopped by a typed Ctrl-C: the
 * progress line is erased before the `Interrupted` line and never drawn
 * again — not by the events a body still emits while the exit waits for it
 * to settle (`DRAIN_MS`), which left `computing-N …` below the notice and on
 * the screen at the exit (R141-3).
 */
import assert from "node:assert/strict";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { atTerminal } from "../support/pty.ts";
import { userWorkflow } from "./cli_support.ts";

// a body that ignores its abort and keeps telling its progress, ~every 200 ms
const SLOW = `export default (api) => api.workflow("Slow", { tasks: {
  main: { type: "string", run: async (_i, job) => {
    for (let i = 1; i <= 20; i++) {
      await job.log("computing-" + i, "step " + i);
      await new Promise((r) => setTimeout(r, 200));
    }
    return "finished";
  } },
} });
`;

Deno.test("workflow task: after Ctrl-C the progress line is erased once, before the Interrupted line, and never redrawn during the drain (R141-3)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Slow", SLOW);
  const run = await atTerminal([DENO, ...SCOUT_SOURCE_ARGS, "workflow", "task", "Slow", "main"], {
    cwd: d.path,
    env: { SCOUT_HOME: d.path, HOME: d.path, NO_COLOR: "1" },
    steps: [{ after: "computing-2 ", type: "\x03" }],
  });
  assert.equal(run.code, 130, run.screen);
  const notice = run.screen.indexOf("scout-ai: Interrupted (job ");
  assert.ok(notice > 0, run.screen);
  // the line is erased just before the notice (after the ^C the terminal echoed)
  assert.ok(run.screen.slice(0, notice).endsWith("\r\x1b[K"), JSON.stringify(run.screen));
  // after it: the notice's line, and nothing drawn or left on the screen
  const after = run.screen.slice(notice);
  assert.match(
    after,
    /^scout-ai: Interrupted \(job "[^"\r\n]*Slow\/main\/Default" recorded as aborted\)\r\n$/,
    JSON.stringify(after),
  );
});
