/**
 * `workflow task` under SIGINT/SIGTERM, through a real process: a signal
 * that arrives while the body computes synchronously wins over its result
 * (R75-4), and the run ends with one stderr line naming the aborted job (R75-7).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { readInfo, signalDuringJob, userWorkflow } from "./cli_support.ts";

const BUSY = `export default (api) => api.workflow("Busy", { tasks: {
  spin: { type: "string", run: () => {
    const t0 = Date.now();
    while (Date.now() - t0 < 2000) { /* synchronous work: no await, no timer */ }
    return "finished";
  } },
} });
`;

// SIGHUP (a closed terminal, a dropped ssh session) as SIGTERM (R91-3)
const SIGNALS = [
  ["SIGINT", 130, "Interrupted"],
  ["SIGTERM", 143, "Terminated"],
  ["SIGHUP", 129, "Hangup"],
] as const;

for (const [signal, code, word] of SIGNALS) {
  Deno.test(`workflow task: ${signal} during a synchronous body records aborted, exits ${code} (R75-4, R75-7)`, async () => {
    await using d = await tempDir();
    userWorkflow(d.path, "Busy", BUSY);
    const path = join(d.path, "var/jobs/Busy/spin/Default");
    const out = await signalDuringJob(d.path, ["Busy", "spin"], path, signal);
    const { stdout, stderr } = out;
    assert.equal(out.code, code, stderr);
    assert.equal(stdout, "", "no result printed");
    assert.equal(
      existsSync(path),
      false,
      `no result file (info: ${JSON.stringify(readInfo(path))})`,
    );
    const info = readInfo(path)!;
    assert.equal(info.status, "aborted");
    assert.deepEqual(info.messages, [`Aborted: interrupted by ${signal}`]);
    // one line naming the job, in the words an interrupted ask ends with (R75-7)
    assert.equal(stderr, `scout-ai: ${word} (job "${path}" recorded as aborted)\n`);
  });
}
