/**
 * Workflow runner benchmarks (issue 4 targets):
 * - resolve and run 1,000 trivial jobs, as a chain and as a fan-in, with atomic
 *   writes, locks and info intact — target ≥ 300 jobs/s;
 * - `dist/scout-ai workflow task` on an already-done job (cache hit), median of
 *   15 runs — target ≤ 50 ms.
 *
 * `tools/deno task bench` runs the Deno.bench cases; for the figures in jobs/s and
 * ms run `tools/deno run -A bench/workflow_bench.ts`.
 */
import { join } from "node:path";
import { chain, fanIn } from "./workflow/scenarios.ts";
import { median } from "./stats.ts";
import { BINARY, buildBinary, ROOT } from "../tests/support/cli.ts";

const N = 1000;

async function fresh<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "scout-wf-bench-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.bench({ name: "workflow: chain of 1,000 jobs (resolve + run)", n: 3, warmup: 1 }, async () => {
  await fresh((d) => chain(d, N));
});

Deno.bench(
  { name: "workflow: fan-in of 1,000 jobs (resolve + run)", n: 3, warmup: 1 },
  async () => {
    await fresh((d) => fanIn(d, N));
  },
);

async function jobsPerSecond(label: string, fn: (d: string) => Promise<unknown>): Promise<void> {
  const rates: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    await fresh(fn);
    rates.push(N / ((performance.now() - t0) / 1000));
  }
  console.log(
    `${label}: median ${median(rates).toFixed(0)} jobs/s (runs: ${
      rates.map((r) => r.toFixed(0)).join(", ")
    })`,
  );
}

async function cacheHitLatency(): Promise<void> {
  await buildBinary();
  const home = await Deno.makeTempDir({ prefix: "scout-wf-bench-home-" });
  const args = ["workflow", "task", join(ROOT, "fixtures/workflows/Baking"), "cake", "--eggs", "3"];
  const run = () =>
    new Deno.Command(BINARY, {
      args,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    })
      .output();
  const first = await run();
  if (first.code !== 0) throw new Error(new TextDecoder().decode(first.stderr));
  const times: number[] = [];
  for (let k = 0; k < 15; k++) {
    const t0 = performance.now();
    const r = await run();
    times.push(performance.now() - t0);
    if (r.code !== 0) throw new Error("cache-hit run failed");
  }
  await Deno.remove(home, { recursive: true });
  console.log(
    `binary workflow task, cache hit: median ${median(times).toFixed(1)} ms over 15 runs ` +
      `(min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})`,
  );
}

if (import.meta.main) {
  await jobsPerSecond("chain of 1,000", (d) => chain(d, N));
  await jobsPerSecond("fan-in of 1,000", (d) => fanIn(d, N));
  await cacheHitLatency();
}
