/**
 * ChatAnalyst's `chat_report` against `llm prov --json` on the generated
 * bench store (issue 17: the report, computing all its dependency jobs from
 * scratch, ≤ 1.5× the time of `prov --json`), plus the cached second report.
 *
 *   tools/deno task build                                   # dist/scout-ai
 *   tools/deno run -A bench/chat_analyst_bench.ts            # scale 1, 5 runs, the binary
 *   tools/deno run -A bench/chat_analyst_bench.ts --scale 0.1 --runs 3 --deno
 *
 * The store is generated on first use into `bench/out/prov-<scale>` by
 * `bench/prov_store.ts`. Each run pairs `prov --json` with a fresh report
 * (an empty `SCOUT_HOME`, so every ChatAnalyst job is computed), then times
 * the report again (every job done: nothing is computed). Times are
 * medians; the ratio is the median of the per-pair ratios (a shared host's
 * speed drifts, so each pair sees the same machine); CPU time (user + sys,
 * all threads) is reported beside wall time because on a busy shared host
 * wall time mostly measures the neighbours. `--deno` runs the CLI from
 * source instead of the binary. Where the time goes, stage by stage:
 * `bench/chat_analyst_stages.ts`.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateStore } from "./prov_store.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const args = process.argv.slice(2);
const value = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const scale = Number(value("scale") ?? 1);
const runs = Number(value("runs") ?? 5);
const withDeno = args.includes("--deno");
const scout = withDeno
  ? `${join(ROOT, "tools/deno")} run -q -A ${join(ROOT, "cli.ts")}`
  : join(ROOT, "dist/scout-ai");

function timed(
  cmd: string,
  env: Record<string, string>,
): { seconds: number; cpu: number; kb: number } {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", "sh", "-c", cmd], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const [s, user, sys, kb] = r.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  return { seconds: s!, cpu: user! + sys!, kb: kb! };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function countJobs(home: string): number {
  const dir = join(home, "var/jobs/ChatAnalyst");
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).flatMap((t) =>
    readdirSync(join(dir, t)).filter((f) => !f.endsWith(".info") && !f.endsWith(".files"))
  ).length;
}

if (!withDeno && !existsSync(scout)) {
  console.error(`${scout} not found: run 'tools/deno task build' first, or pass --deno`);
  process.exit(1);
}
const store = join(ROOT, `bench/out/prov-${scale}`);
if (!existsSync(join(store, "session.chat"))) await generateStore(store, { scale });
const file = `bench/out/prov-${scale}/session.chat`;
const jobs = `bench/out/prov-${scale}/jobs`;
const prov = `${scout} llm prov ${file} --jobs-dir ${jobs} --json > /dev/null`;
const report =
  `${scout} workflow task ChatAnalyst chat_report --file ${file} --jobs_dir ${jobs} > /dev/null`;

const provT: number[] = [];
const reportT: number[] = [];
const cachedT: number[] = [];
const ratios: number[] = [];
const provCpu: number[] = [];
const reportCpu: number[] = [];
const cpuRatios: number[] = [];
let provKb = 0;
let reportKb = 0;
for (let i = 0; i < runs; i++) {
  const home = mkdtempSync(join(tmpdir(), "scout-analyst-bench-"));
  try {
    const p = timed(prov, { SCOUT_HOME: home });
    const r = timed(report, { SCOUT_HOME: home });
    const jobsAfterFirst = countJobs(home);
    const c = timed(report, { SCOUT_HOME: home });
    if (countJobs(home) !== jobsAfterFirst) throw new Error("the cached report computed new jobs");
    provT.push(p.seconds);
    reportT.push(r.seconds);
    cachedT.push(c.seconds);
    ratios.push(r.seconds / p.seconds);
    provCpu.push(p.cpu);
    reportCpu.push(r.cpu);
    cpuRatios.push(r.cpu / p.cpu);
    provKb = Math.max(provKb, p.kb);
    reportKb = Math.max(reportKb, r.kb);
    const n = i + 1;
    console.error(
      `run ${n}: prov --json ${p.seconds}s (cpu ${p.cpu.toFixed(2)}s), ` +
        `chat_report ${r.seconds}s (cpu ${r.cpu.toFixed(2)}s, ${jobsAfterFirst} jobs), ` +
        `cached ${c.seconds}s`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
const ratio = median(ratios);
const cpuRatio = median(cpuRatios);
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const how = withDeno ? "deno" : "binary";
console.log([
  `ChatAnalyst chat_report on bench/out/prov-${scale} (${how}, ${runs} runs; median)`,
  `  llm prov --json      ${median(provT).toFixed(2)} s, cpu ${median(provCpu).toFixed(2)} s, ` +
  `peak ${mb(provKb)}`,
  `  chat_report (fresh)  ${median(reportT).toFixed(2)} s, cpu ${
    median(reportCpu).toFixed(2)
  } s, ` +
  `peak ${mb(reportKb)}`,
  `  chat_report (cached) ${median(cachedT).toFixed(2)} s`,
  `  fresh / prov         ${ratio.toFixed(2)}x wall, ${cpuRatio.toFixed(2)}x cpu (budget 1.5x)`,
].join("\n"));
