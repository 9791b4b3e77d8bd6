/**
 * `--recompute` started while another process's recompute has finished a
 * dependency and is running the job that reads it (R148-2's closing note):
 * the later run found `prep` done and nobody computing it, so it cleaned it
 * under the first run's `grade`, whose next read of `prep` computed it a
 * second time — one run's result then came from two different `prep`s (a
 * read at that instant fails the run instead). Real processes, own
 * SCOUT_HOME; the moment is held open by a file the task waits for.
 *
 * What is asserted, for every invocation: it exits 0; it prints a result
 * that did not exist when it began (the first recompute's, whose `grade`
 * ends after the later ones began); within one `grade` run, both reads of
 * `prep` see the same result (none replaced or removed under a run reading
 * it); and the recomputes compute each job once.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { userWorkflow } from "./cli_support.ts";
import { grade, watch } from "./recompute_support.ts";
import { waitUntil } from "../support/wait.ts";

const GRADER = (log: string, go: string) =>
  `import { appendFileSync, existsSync, readFileSync } from "node:fs";
const nap = (s) => new Promise((r) => setTimeout(r, s * 1000));
const until = async (file) => { while (!existsSync(file)) await nap(0.05); };
const said = (what) => appendFileSync(${JSON.stringify(log)}, \`\${what} \${process.pid}\\n\`);
const preps = () => readFileSync(${JSON.stringify(log)}, "utf8").split("\\n")
  .filter((l) => l.startsWith("prep ")).length;
export default (api) => api.workflow("Grader", { tasks: {
  prep: { type: "string", inputs: { n: api.input.integer({ default: 1 }) },
    run: async ({ n }) => { said("prep"); return \`prep \${n} by \${process.pid} run \${preps()}\`; } },
  grade: { type: "string", inputs: { n: api.input.integer({ default: 1 }) }, deps: ["prep"],
    run: async ({ n }, job) => {
      const first = await job.load("prep");
      said("grade");
      await until(${JSON.stringify(go)});
      const again = await job.load("prep");
      return first === again ? \`graded (\${first}) by \${process.pid}\`
        : \`prep replaced under grade: \${first}, then \${again}\`;
    } },
} });
`;

Deno.test("workflow task --recompute while another recompute's job reads its fresh dependency: the dependency is not cleaned under it", async () => {
  await using d = await tempDir();
  const log = join(d.path, "ran.log");
  const go = join(d.path, "go");
  userWorkflow(d.path, "Grader", GRADER(log, go));
  const dec = new TextDecoder();
  writeFileSync(go, "");
  const before = await grade(d.path).output(); // results to recompute
  assert.equal(before.code, 0, dec.decode(before.stderr));
  const old = dec.decode(before.stdout);
  rmSync(go);
  const first = watch(grade(d.path, "--recompute"));
  const firstPid = await waitPid(log);
  // the first recompute's prep is done and its grade has read it once, and waits: the later
  // recomputes start now, each until it waits on the lock of a job the first one holds
  const later = [1, 2].map(() => watch(grade(d.path, "--recompute")));
  await waitUntil(
    "every later recompute to wait for the first one's run",
    () => later.every((r) => r.seen.stderr.includes("waiting for lock")),
    120_000,
  );
  writeFileSync(go, "");
  const want = `graded (prep 3 by ${firstPid} run 2) by ${firstPid}\n`;
  for (const r of [first, ...later]) {
    // before: the first printed `prep replaced under grade: prep 3 by … run 2, then … run 3`
    assert.equal(await r.ended(), 0, r.seen.stderr);
    assert.equal(r.seen.stdout, want, r.seen.stderr);
    assert.notEqual(r.seen.stdout, old);
  }
  const bodies = ran(log).slice(2); // the plain run's prep and grade, then the recomputes'
  assert.deepEqual(bodies, [`prep ${firstPid}`, `grade ${firstPid}`], "each recomputed once");
});

function ran(log: string): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
}

/** The pid of the first recompute, once its grade has read prep and waits. */
async function waitPid(log: string): Promise<string> {
  await waitUntil("the first recompute's grade", () => ran(log).length >= 4, 60_000);
  const line = ran(log)[3]!;
  assert.match(line, /^grade \d+$/, ran(log).join("\n"));
  return line.split(" ")[1]!;
}
