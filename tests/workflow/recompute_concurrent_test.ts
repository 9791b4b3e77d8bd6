/**
 * `--recompute` of a job another process is recomputing right now (R148-2):
 * `seq 1 8 | xargs -P 8 -I{} scout-ai workflow task Grader grade --recompute`
 * failed all runs but one with `Job "Grader/prep/…" is running (pid …); not
 * cleaning it`. A run that finds a job it was to clean being computed by
 * another live process now waits for that run and takes its result: freshly
 * computed after the call began. Real processes, own SCOUT_HOME.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const GRADER = (log: string) =>
  `import { appendFileSync } from "node:fs";
const nap = (s) => new Promise((r) => setTimeout(r, s * 1000));
const said = (what) => appendFileSync(${JSON.stringify(log)}, \`\${what} \${process.pid}\\n\`);
export default (api) => api.workflow("Grader", { tasks: {
  prep: { type: "string", inputs: { n: api.input.integer({ default: 1 }) },
    run: async ({ n }) => { said("prep"); await nap(5); return \`prep \${n} by \${process.pid}\`; } },
  grade: { type: "string", inputs: { n: api.input.integer({ default: 1 }) }, deps: ["prep"],
    run: async ({ n }, job) => { said("grade"); await nap(1);
      return \`graded (\${await job.load("prep")}) by \${process.pid}\`; } },
} });
`;

function grade(dir: string, ...more: string[]): Deno.ChildProcess {
  return new Deno.Command(DENO, {
    args: [...SCOUT_SOURCE_ARGS, "workflow", "task", "Grader", "grade", "--n", "3", ...more],
    cwd: dir,
    env: env(dir),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("workflow task --recompute while another process recomputes the job: waits and takes its fresh result (R148-2)", async () => {
  await using d = await tempDir();
  const log = join(d.path, "ran.log");
  userWorkflow(d.path, "Grader", GRADER(log));
  const dec = new TextDecoder();
  const before = await grade(d.path).output(); // a result to recompute
  assert.equal(before.code, 0, dec.decode(before.stderr));
  const first = grade(d.path, "--recompute");
  const t0 = Date.now();
  const ran = () => existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
  while (!ran().includes(`prep ${first.pid}`)) {
    if (Date.now() - t0 > 60_000) throw new Error("the first recompute's prep never started");
    await new Promise((r) => setTimeout(r, 20));
  }
  // started while the first one's prep runs (5 s): they find it running
  const others = [1, 2, 3].map(() => grade(d.path, "--recompute"));
  const outs = await Promise.all([first, ...others].map((p) => p.output()));
  const want = `graded (prep 3 by ${first.pid}) by ${first.pid}\n`;
  for (const o of outs) {
    // before: exit 1, `Job "Grader/prep/…" is running (pid …); not cleaning it`
    assert.equal(o.code, 0, dec.decode(o.stderr));
    assert.equal(dec.decode(o.stdout), want, dec.decode(o.stderr));
  }
  const bodies = ran().slice(2); // the first plain run's prep and grade, then the recomputes'
  assert.deepEqual(bodies, [`prep ${first.pid}`, `grade ${first.pid}`], "each recomputed once");
});
