/**
 * `--recompute` of a job another process is recomputing right now (R148-2):
 * `seq 1 8 | xargs -P 8 -I{} scout-ai workflow task Grader grade --recompute`
 * failed all runs but one with `Job "Grader/prep/…" is running (pid …); not
 * cleaning it`. A run that finds a job it was to clean being computed by
 * another live process now waits for that run and takes its result: freshly
 * computed after the call began. Real processes, own SCOUT_HOME.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { userWorkflow } from "./cli_support.ts";
import { grade, watch } from "./recompute_support.ts";
import { waitUntil } from "../support/wait.ts";

const GRADER = (log: string, go: string) =>
  `import { appendFileSync, existsSync } from "node:fs";
const nap = (s) => new Promise((r) => setTimeout(r, s * 1000));
const until = async (file) => { while (!existsSync(file)) await nap(0.05); };
const said = (what) => appendFileSync(${JSON.stringify(log)}, \`\${what} \${process.pid}\\n\`);
export default (api) => api.workflow("Grader", { tasks: {
  prep: { type: "string", inputs: { n: api.input.integer({ default: 1 }) },
    run: async ({ n }) => { said("prep"); await until(${JSON.stringify(go)});
      return \`prep \${n} by \${process.pid}\`; } },
  grade: { type: "string", inputs: { n: api.input.integer({ default: 1 }) }, deps: ["prep"],
    run: async ({ n }, job) => { said("grade"); await nap(1);
      return \`graded (\${await job.load("prep")}) by \${process.pid}\`; } },
} });
`;

Deno.test("workflow task --recompute while another process recomputes the job: waits and takes its fresh result (R148-2)", async () => {
  await using d = await tempDir();
  const log = join(d.path, "ran.log");
  const go = join(d.path, "go");
  userWorkflow(d.path, "Grader", GRADER(log, go));
  const dec = new TextDecoder();
  writeFileSync(go, "");
  const before = await grade(d.path).output(); // a result to recompute
  assert.equal(before.code, 0, dec.decode(before.stderr));
  rmSync(go);
  const first = grade(d.path, "--recompute");
  const ran = () => existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
  await waitUntil("the first recompute's prep", () => ran().includes(`prep ${first.pid}`), 60_000);
  // started while the first one's prep runs, which is held until each of them has found it
  // running and waits for it (a machine under load may take seconds to start a process)
  const runs = [first, ...[1, 2, 3].map(() => grade(d.path, "--recompute"))].map(watch);
  await waitUntil(
    "every other recompute to wait for the running prep",
    () => runs.slice(1).every((r) => r.seen.stderr.includes("waiting for lock")),
    120_000,
  );
  writeFileSync(go, "");
  const want = `graded (prep 3 by ${first.pid}) by ${first.pid}\n`;
  for (const r of runs) {
    // before: exit 1, `Job "Grader/prep/…" is running (pid …); not cleaning it`
    assert.equal(await r.ended(), 0, r.seen.stderr);
    assert.equal(r.seen.stdout, want, r.seen.stderr);
  }
  const bodies = ran().slice(2); // the first plain run's prep and grade, then the recomputes'
  assert.deepEqual(bodies, [`prep ${first.pid}`, `grade ${first.pid}`], "each recomputed once");
});
