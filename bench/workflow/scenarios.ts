/**
 * Benchmark scenarios for the workflow runner: 1,000 trivial jobs as a chain
 * (each depends on the previous) and as a fan-in (one job over 1,000 leaves),
 * resolved (identity computed) and run with real atomic writes, locks and info.
 */
import { join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobStore } from "../../src/workflow/store.ts";

/** Defines the benchmark workflow in a fresh jobs directory. */
export function benchWorkflow(dir: string) {
  return workflow("Bench", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      link: {
        type: "integer",
        inputs: { n: input.integer({ default: 0 }) },
        deps: [{
          task: "link",
          resolve: (_id, o) => (o.n as number) > 0 ? [{ inputs: { n: (o.n as number) - 1 } }] : [],
        }],
        run: async ({ n }, job) => (n as number) === 0 ? 0 : (await job.load("link") as number) + 1,
      },
      leaf: { type: "integer", inputs: { i: input.integer({ default: 0 }) }, run: ({ i }) => i },
      sum: {
        type: "integer",
        inputs: { count: input.integer({ default: 1 }) },
        deps: [{
          task: "leaf",
          resolve: (_id, o) =>
            Array.from({ length: o.count as number }, (_, i) => ({ inputs: { i } })),
        }],
        run: async (_i, job) => {
          let s = 0;
          for (const d of job.dependencies) s += await job.load(d) as number;
          return s;
        },
      },
    },
  });
}

/** Resolves and runs a chain of `n` jobs; returns the result. */
export async function chain(dir: string, n: number): Promise<unknown> {
  const wf = benchWorkflow(dir);
  const store = jobStore({
    env: { SCOUT_HOME: join(dir, "home") },
    cwd: dir,
    jobsDir: join(dir, "jobs"),
  });
  return expect(await runJob(createJob(wf, "link", { inputs: { n: n - 1 }, store })), n - 1);
}

/** Resolves and runs a fan-in of `n` leaves plus the sum job; returns the result. */
export async function fanIn(dir: string, n: number): Promise<unknown> {
  const wf = benchWorkflow(dir);
  const store = jobStore({
    env: { SCOUT_HOME: join(dir, "home") },
    cwd: dir,
    jobsDir: join(dir, "jobs"),
  });
  const leaves = n - 1; // the sum job is the n-th
  const total = (leaves * (leaves - 1)) / 2;
  return expect(await runJob(createJob(wf, "sum", { inputs: { count: leaves }, store })), total);
}

/** A figure for a run that computed the wrong thing would be meaningless: refuse it. */
function expect(got: unknown, want: number): unknown {
  if (got !== want) throw new Error(`Benchmark computed ${String(got)}, expected ${want}`);
  return got;
}
