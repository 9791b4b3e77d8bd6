/**
 * A chain of dependencies deeper than the stack holds (R89-4): building the
 * job fails naming the dependency depth it reached, not with a bare
 * "Maximum call stack size exceeded"; a shallow chain still builds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { countdownTask, env, userWorkflow } from "./cli_support.ts";

const chain = (jobsDir: string) =>
  workflow("Scale", {
    jobsDir,
    tasks: {
      chain: countdownTask,
    },
  });

Deno.test("createJob: a dependency chain too deep for the stack fails naming its depth (R89-4)", async () => {
  await using d = await tempDir();
  const wf = chain(join(d.path, "jobs"));
  const shallow = createJob(wf, "chain", { inputs: { depth: 50 } });
  assert.equal(shallow.deps[0]!.deps[0]!.inputs.depth, 48);
  assert.throws(
    () => createJob(wf, "chain", { inputs: { depth: 20_000 } }),
    (e) =>
      isScoutError(e, "parameter") &&
      /^Dependencies of Scale\/chain nest too deep to build: the stack ran out at dependency depth \d+ \(Scale\/chain\)/
        .test(e.message),
  );
});

Deno.test("workflow task: a dependency chain too deep names the depth, not the stack (R89-4)", async () => {
  await using d = await tempDir();
  userWorkflow(
    d.path,
    "Scale",
    `export default (api) => api.workflow("Scale", { tasks: { chain: { type: "integer",
  inputs: { depth: api.input.integer({ default: 0 }) },
  deps: [{ task: "chain", resolve: (_id, o) => o.depth > 0 ? [{ depth: o.depth - 1 }] : [] }],
  run: () => 0 } } });
`,
  );
  const r = await runMain(["workflow", "task", "Scale", "chain", "--depth", "20000"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^scout-ai: Dependencies of Scale\/chain nest too deep to build: the stack ran out at dependency depth \d+ /,
  );
});
