/**
 * A failed job run again in place keeps its failed run's evidence as an
 * earlier attempt (R109-3, `src/workflow/attempts.ts`): through `runJob`
 * and `produceJob` (which Scout makes clean a recoverable error first), only
 * when the run left files, at most `MAX_KEPT_ATTEMPTS` of them; an explicit
 * clean deletes them. Real jobs in a temp store.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { cleanJob, produceJob, runJob } from "../../src/workflow/run.ts";
import {
  keptAttempts,
  MAX_KEPT_ATTEMPTS,
  setAsideEarlierRun,
} from "../../src/workflow/attempts.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import { homeIn, tempDir } from "../support/cli.ts";

/** A task that writes `log/run.txt` (unless `quiet`) then fails while `fail.n > 0`. */
function flaky(dir: string, fail: { n: number; quiet?: boolean }) {
  let run = 0;
  return workflow("Flaky", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      go: {
        type: "string",
        run: (_inputs, job) => {
          run++;
          if (!fail.quiet) writeFileSync(job.file("log/run.txt"), `run ${run}\n`);
          if (fail.n-- > 0) throw new Error(`failure ${run}`);
          return `ok ${run}`;
        },
      },
    },
  });
}

const failing = (p: Promise<unknown>) => assert.rejects(p, /failure/);

Deno.test("runJob: a job in error run again keeps the failed run's info and files as attempt 1", async () => {
  await using d = await tempDir();
  const job = createJob(flaky(d.path, { n: 1 }), "go", { env: homeIn(d.path) });
  await failing(runJob(job));
  assert.equal(await runJob(job), "ok 2");
  const [a, ...more] = keptAttempts(job.path);
  assert.deepEqual(more, []);
  assert.equal(a!.n, 1);
  assert.equal(a!.path, join(`${job.path}.files`, ".attempts", "1"));
  const info = JSON.parse(readFileSync(`${a!.path}.info`, "utf8"));
  assert.equal(info.status, "error");
  assert.match(info.messages.at(-1), /failure 1/);
  assert.equal(readFileSync(join(`${a!.path}.files`, "log/run.txt"), "utf8"), "run 1\n");
  assert.equal(readFileSync(join(`${job.path}.files`, "log/run.txt"), "utf8"), "run 2\n");
});

Deno.test("listJobFiles: a job's files are its last run's, its earlier attempts left out unless asked for", async () => {
  await using d = await tempDir();
  const job = createJob(flaky(d.path, { n: 1 }), "go", { env: homeIn(d.path) });
  await failing(runJob(job));
  assert.equal(await runJob(job), "ok 2");
  assert.deepEqual(await listJobFiles(job.path), ["log/run.txt"]);
  assert.deepEqual(await listJobFiles(job.path, "."), ["log/run.txt"]);
  assert.deepEqual(await listJobFiles(job.path, ".attempts"), [
    ".attempts/1.files/log/run.txt",
    ".attempts/1.info",
  ]);
});

Deno.test("produceJob: a recoverable error is not cleaned away but kept as an attempt", async () => {
  await using d = await tempDir();
  const job = createJob(flaky(d.path, { n: 2 }), "go", { env: homeIn(d.path) });
  await failing(runJob(job));
  await failing(produceJob(job));
  await produceJob(job);
  assert.deepEqual(keptAttempts(job.path).map((a) => a.n), [1, 2]);
  const texts = keptAttempts(job.path).map((a) =>
    readFileSync(join(`${a.path}.files`, "log/run.txt"), "utf8")
  );
  assert.deepEqual(texts, ["run 1\n", "run 2\n"]);
});

Deno.test("a failed run that left no files is not kept; a done job run again after a clean has none", async () => {
  await using d = await tempDir();
  const job = createJob(flaky(d.path, { n: 1, quiet: true }), "go", { env: homeIn(d.path) });
  await failing(runJob(job));
  assert.equal(await runJob(job), "ok 2");
  assert.deepEqual(keptAttempts(job.path), []);
  await cleanJob(job);
  assert.equal(await runJob(job), "ok 3");
  assert.deepEqual(keptAttempts(job.path), []);
});

Deno.test("at most MAX_KEPT_ATTEMPTS attempts are kept, the oldest dropped; a clean deletes them", async () => {
  await using d = await tempDir();
  const fails = MAX_KEPT_ATTEMPTS + 2;
  const job = createJob(flaky(d.path, { n: fails }), "go", { env: homeIn(d.path) });
  for (let i = 0; i < fails; i++) await failing(runJob(job));
  assert.equal(await runJob(job), `ok ${fails + 1}`);
  const kept = keptAttempts(job.path);
  assert.deepEqual(
    kept.map((a) => a.n),
    Array.from({ length: MAX_KEPT_ATTEMPTS }, (_, i) => i + 3),
  );
  assert.equal(existsSync(join(`${job.path}.files`, ".attempts", "2.files")), false);
  await cleanJob(job);
  assert.equal(existsSync(`${job.path}.files`), false);
});

Deno.test("setAsideEarlierRun: a run in progress recorded on another host stays in place; one whose pid is gone here is set aside (R130-3)", async () => {
  await using d = await tempDir();
  const job = createJob(flaky(d.path, { n: 0 }), "go", { env: homeIn(d.path) });
  const left = (info: Record<string, unknown>) => {
    Deno.mkdirSync(dirname(job.path), { recursive: true });
    writeFileSync(`${job.path}.info`, JSON.stringify(info));
    Deno.mkdirSync(join(`${job.path}.files`, "log"), { recursive: true });
    writeFileSync(join(`${job.path}.files`, "log/run.txt"), "in progress\n");
  };
  // its lock taken as stale by age alone: the run may only have paused, and must keep its files
  left({ status: "start", pid: 4_000_000, pid_hostname: "another-host" });
  assert.equal(setAsideEarlierRun(job.path), null);
  assert.equal(readFileSync(join(`${job.path}.files`, "log/run.txt"), "utf8"), "in progress\n");
  // no process of that pid here (pid_max is at most 4,194,304): it died
  left({ status: "start", pid: 4_194_305, pid_hostname: hostname() });
  assert.equal(setAsideEarlierRun(job.path), 1);
  assert.equal(existsSync(join(`${job.path}.files`, "log/run.txt")), false);
});
