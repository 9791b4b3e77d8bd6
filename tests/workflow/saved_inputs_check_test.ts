/**
 * `checkingGivenFiles` (R122-1): a job given a file as named, run through
 * it, stores its result only when that file is as it was when the job was
 * built; a change during the body fails the job unstored. A job given no
 * such file is run as it is (nothing to check, nothing to pay).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { produceJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { checkingGivenFiles } from "../../src/workflow/deploy/saved_inputs_check.ts";
import type { OriginalFile } from "../../src/workflow/deploy/saved_inputs_use.ts";
import { homeIn, tempDir } from "../support/cli.ts";

/** `C/read` reads its `doc` file after `during()`; `C/reads` each of its `docs`; `C/plain` takes none. */
function checked(during: () => void) {
  return workflow("C", {
    tasks: {
      read: {
        type: "string",
        inputs: { doc: input.file() },
        run: ({ doc }) => {
          during();
          return readFileSync(doc as string, "utf8");
        },
      },
      reads: {
        type: "string",
        inputs: { docs: input.arrayOf("file") },
        run: ({ docs }) => {
          during();
          return (docs as string[]).map((f) => readFileSync(f, "utf8")).join("");
        },
      },
      plain: { type: "string", inputs: { n: input.integer() }, run: () => "plain" },
    },
  });
}

/** The file as given to a job as named now (`withSavedFiles`'s record of it). */
function given(input: string, file: string): OriginalFile {
  const { dev, ino, size, mtimeMs } = statSync(file);
  return { input, file, dev, ino, size, mtimeMs };
}

Deno.test("checkingGivenFiles: a job given no file as named is run as it is, unwrapped", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d.txt");
  writeFileSync(doc, "doc A\n");
  const job = createJob(checked(() => {}), "plain", { env: homeIn(d.path), inputs: { n: 1 } });
  assert.equal(checkingGivenFiles(job, [given("doc", doc)]), job);
  const read = createJob(checked(() => {}), "read", { env: homeIn(d.path), inputs: { doc } });
  assert.equal(checkingGivenFiles(read, []), read);
  assert.notEqual(checkingGivenFiles(read, [given("doc", doc)]), read);
});

Deno.test("checkingGivenFiles: the file unchanged, the result is stored; changed during the body (a list's item too), the job fails unstored, naming the input (R122-1)", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d.txt");
  writeFileSync(doc, "doc A\n");
  let changes = 0;
  const wf = checked(() => {
    if (changes > 0) utimesSync(doc, new Date(), new Date(Date.now() - 60_000 * changes++));
  });
  const env = homeIn(d.path);
  const same = createJob(wf, "read", { env, inputs: { doc } });
  await produceJob(checkingGivenFiles(same, [given("doc", doc)]));
  assert.equal(readFileSync(same.path, "utf8"), "doc A\n");
  changes = 1; // each body from now on gives the file another modification time
  for (const [task, inputs] of [["read", { doc }], ["reads", { docs: [doc] }]] as const) {
    const job = createJob(wf, task, { env, inputs, jobname: "changed" });
    const why = `the input file "${doc}" (--doc) changed while the job ran (replaced or edited)`;
    await assert.rejects(
      produceJob(checkingGivenFiles(job, [given("doc", doc)])),
      (e) =>
        isScoutError(e, "job_failed") && e.message.includes(`${why}: its result is not stored`),
    );
    assert.ok(!existsSync(job.path), task);
    const info = await jobInfo(job.path);
    assert.equal(info?.status, "error");
    assert.ok(String(info?.messages?.at(-1)).includes(why), task);
  }
});
