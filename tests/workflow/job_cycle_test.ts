/**
 * A dependency cycle (R88-3): `a` needing `b` needing `a`, or `s` needing
 * itself, fails before any job runs with one line naming the cycle and the
 * workflow file, not a stack overflow; the same task with other inputs (a
 * chain counting down) is no cycle.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { countdownTask, env, userWorkflow } from "./cli_support.ts";

const CYC = `export default (api) => api.workflow("Cyc", { tasks: {
  a: { type: "string", deps: ["b"], run: () => { throw new Error("a ran"); } },
  b: { type: "string", deps: ["a"], run: () => { throw new Error("b ran"); } },
  s: { type: "string", deps: ["s"], run: () => { throw new Error("s ran"); } },
  c: { type: "string", deps: ["a"], run: () => "c" },
} });
`;

Deno.test("createJob: a dependency cycle is named, a countdown chain is not one (R88-3)", async () => {
  await using d = await tempDir();
  const noop = () => "";
  const wf = workflow("Cyc", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      a: { type: "string", inputs: {}, deps: ["b"], run: noop },
      b: { type: "string", inputs: {}, deps: ["a"], run: noop },
      s: { type: "string", inputs: {}, deps: ["s"], run: noop },
      c: { type: "string", inputs: {}, deps: ["a"], run: noop },
      chain: countdownTask,
    },
  });
  const cycle = (task: string, text: string) =>
    assert.throws(
      () => createJob(wf, task),
      (e) => isScoutError(e, "parameter") && e.message === text,
    );
  cycle("a", "Dependency cycle: Cyc/a → Cyc/b → Cyc/a");
  cycle("s", "Dependency cycle: Cyc/s → Cyc/s");
  cycle("c", "Dependency cycle: Cyc/a → Cyc/b → Cyc/a");
  const chain = createJob(wf, "chain", { inputs: { depth: 3 } });
  assert.equal(chain.deps[0]!.deps[0]!.deps[0]!.inputs.depth, 0);
  assert.equal(chain.deps[0]!.deps[0]!.deps[0]!.deps.length, 0);
});

for (const deploy of [[], ["--deploy", "local"]]) {
  Deno.test(`workflow task${deploy.map((a) => " " + a).join("")}: a dependency cycle is one line naming it and the file (R88-3)`, async () => {
    await using d = await tempDir();
    const file = join(userWorkflow(d.path, "Cyc", CYC), "workflow.ts");
    for (
      const [task, cycle] of [["a", "Cyc/a → Cyc/b → Cyc/a"], ["s", "Cyc/s → Cyc/s"]]
    ) {
      const r = await runMain(["workflow", "task", "Cyc", task!, ...deploy], {
        cwd: d.path,
        env: env(d.path),
      });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, `scout-ai: Dependency cycle: ${cycle} (${file})\n`);
    }
    assert.ok(!existsSync(join(d.path, "var", "jobs", "Cyc")), "no job ran");
  });
}
