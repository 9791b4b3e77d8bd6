import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { deserializeResult } from "../../src/workflow/result.ts";
import { homeIn, tempDir } from "../support/cli.ts";

const EMPTY = new Uint8Array();

Deno.test("an empty result file loads as what the runner wrote it for (R75-1, §7.4 #5)", () => {
  // no json/integer/float/boolean value serializes to nothing: empty is a null return
  for (const type of ["json", "integer", "float", "boolean"]) {
    assert.equal(deserializeResult(EMPTY, type), null, type);
  }
  // `""` and `[]` write an empty file too: those stay (Ruby reads them the same)
  assert.equal(deserializeResult(EMPTY, "string"), "");
  assert.equal(deserializeResult(EMPTY, "text"), "");
  assert.deepEqual(deserializeResult(EMPTY, "array"), []);
  assert.deepEqual(deserializeResult(EMPTY, "integer_array"), []);
  assert.deepEqual(deserializeResult(EMPTY, "binary"), EMPTY);
});

Deno.test("a json task returning null is done, loads as null, reruns and feeds a dependent (R75-1)", async () => {
  await using d = await tempDir();
  let runs = 0;
  const wf = workflow("NullResult", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      nothing: { type: "json", run: () => (runs++, null) },
      undef: { type: "json", run: () => undefined },
      count: { type: "integer", run: () => null },
      uses: {
        type: "json",
        deps: ["nothing"],
        run: async (_i, job) => ({ got: await job.load("nothing") }),
      },
    },
  });
  const j = createJob(wf, "nothing", { env: homeIn(d.path) });
  assert.equal(await runJob(j), null);
  assert.equal(readFileSync(j.path, "utf8"), "");
  assert.equal((await jobInfo(j.path))!.status, "done");
  assert.equal(await runJob(createJob(wf, "nothing", { env: homeIn(d.path) })), null); // loaded again, not rerun
  assert.equal(runs, 1);
  assert.equal(await runJob(createJob(wf, "undef", { env: homeIn(d.path) })), null);
  assert.equal(await runJob(createJob(wf, "count", { env: homeIn(d.path) })), null);
  assert.deepEqual(await runJob(createJob(wf, "uses", { env: homeIn(d.path) })), { got: null });
});
