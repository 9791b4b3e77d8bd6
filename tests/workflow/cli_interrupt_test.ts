/**
 * `workflow task` under SIGINT/SIGTERM, through a real process: a signal
 * that arrives while the body computes synchronously wins over its result
 * (R75-4), and the run ends with one stderr line naming the aborted job (R75-7).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const BUSY = `export default (api) => api.workflow("Busy", { tasks: {
  spin: { type: "string", run: () => {
    const t0 = Date.now();
    while (Date.now() - t0 < 2000) { /* synchronous work: no await, no timer */ }
    return "finished";
  } },
} });
`;

function readInfo(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path + ".info", "utf8"));
  } catch {
    return null;
  }
}

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const SIGNALS = [["SIGINT", 130, "Interrupted"], ["SIGTERM", 143, "Terminated"]] as const;

for (const [signal, code, word] of SIGNALS) {
  Deno.test(`workflow task: ${signal} during a synchronous body records aborted, exits ${code} (R75-4, R75-7)`, async () => {
    await using d = await tempDir();
    userWorkflow(d.path, "Busy", BUSY);
    const child = new Deno.Command(DENO, {
      args: [...SCOUT_SOURCE_ARGS, "workflow", "task", "Busy", "spin"],
      cwd: d.path,
      env: env(d.path),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const path = join(d.path, "var/jobs/Busy/spin/Default");
    await waitFor(() => readInfo(path)?.status === "start", "the body to start");
    await new Promise((r) => setTimeout(r, 300));
    child.kill(signal);
    const out = await child.output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
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
