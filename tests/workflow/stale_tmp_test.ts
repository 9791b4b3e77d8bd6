/**
 * A job killed while its body writes the tmp path (spec §3.1 "tmp path"
 * pattern) leaves a partial tmp result; the next run must start without it
 * (R91-2): before, it appended to the stale part and renamed old + new into
 * place as a `done` result. Real `workflow task` processes, SIGKILL (no
 * handler runs, as when the node dies).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { createJob } from "../../src/workflow/job.ts";
import { loadWorkflowFile } from "../../src/workflow/load.ts";
import { produceJob } from "../../src/workflow/run.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

const CRASH = `import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
const pause = () => new Promise((r) => setTimeout(r, 100));
export default (api) => api.workflow("Crash", { tasks: {
  step2: { type: "text", run: async (_i, job) => {
    for (let i = 0; i < 10; i++) {
      appendFileSync(job.tmpPath, "part " + i + "\\n");
      await pause();
    }
    return null;
  } },
  dir: { type: "text", run: async (_i, job) => {
    mkdirSync(job.tmpPath); // not recursive: a stale directory is an error
    for (let i = 0; i < 10; i++) {
      writeFileSync(job.tmpPath + "/part-" + i, "part " + i + "\\n");
      await pause();
    }
    return null;
  } },
} });
`;

/** Number of entries in the tmp path: lines of a file, files of a directory. */
function parts(tmp: string): number {
  try {
    return readFileSync(tmp, "utf8").split("\n").filter((l) => l !== "").length;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EISDIR") return readdirSync(tmp).length;
    return 0;
  }
}

/** Starts `workflow task Crash <task>` and SIGKILLs it once its tmp path holds 3 parts. */
async function killMidway(home: string, task: string): Promise<void> {
  const tmp = join(home, "var/jobs/Crash", task, ".Default");
  const child = spawnScout(["workflow", "task", "Crash", task], {
    cwd: home,
    env: env(home),
    stdout: "null",
    stderr: "null",
  });
  const t0 = Date.now();
  while (parts(tmp) < 3) {
    if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for ${tmp}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill("SIGKILL");
  await child.status;
  const left = parts(tmp);
  assert.ok(left >= 3 && left < 10, `a partial tmp result is left (${left} parts)`);
  assert.equal(readInfo(join(home, "var/jobs/Crash", task, "Default"))?.status, "start");
}

Deno.test("workflow task: a partial tmp file left by a killed run is not reused (R91-2)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Crash", CRASH);
  await killMidway(d.path, "step2");
  const out = await runScout(["workflow", "task", "Crash", "step2"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(out.code, 0, out.stderr);
  const want = Array.from({ length: 10 }, (_, i) => `part ${i}\n`).join("");
  assert.equal(out.stdout.replace(/\n?$/, "\n"), want);
  const path = join(d.path, "var/jobs/Crash/step2/Default");
  assert.equal(readFileSync(path, "utf8"), want);
  assert.equal(existsSync(join(d.path, "var/jobs/Crash/step2/.Default")), false);
});

Deno.test("a partial tmp directory left by a killed run is removed before the next run (R91-2)", async () => {
  await using d = await tempDir();
  const file = join(userWorkflow(d.path, "Crash", CRASH), "workflow.ts");
  await killMidway(d.path, "dir");
  // a directory result does not load as text: produce it, not print it
  const job = createJob(await loadWorkflowFile(file), "dir", { env: { SCOUT_HOME: d.path } });
  assert.equal(job.path, join(d.path, "var/jobs/Crash/dir/Default"));
  await produceJob(job);
  assert.deepEqual(readdirSync(job.path).sort(), Array.from({ length: 10 }, (_, i) => `part-${i}`));
  assert.equal(readInfo(job.path)?.status, "done");
  assert.equal(existsSync(join(d.path, "var/jobs/Crash/dir/.Default")), false);
});
