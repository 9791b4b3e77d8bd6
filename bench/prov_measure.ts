/**
 * Measures `scout-ai llm prov` on generated stores (issue 5): wall time and
 * peak RSS of `prov --json` and of the tree, against `cat`-ing every file of
 * the store (page cache warm), at full size and at a tenth (linearity).
 *
 *   tools/deno task build
 *   tools/deno run -A bench/prov_measure.ts                 # scales 1 and 0.1, 5 runs each
 *   tools/deno run -A bench/prov_measure.ts --scale 1 --runs 3 --deno
 *
 * Stores are generated on first use into `bench/out/prov-<scale>` (git-ignored)
 * by `bench/prov_store.ts`. Each run of `prov` follows a run of `cat` (so
 * both see the same machine: a shared host's speed drifts by 10–20% over
 * minutes); the ratio is the median of the per-pair ratios, times are
 * medians, RSS is the maximum over the runs (`/usr/bin/time -f %M`).
 * `--deno` also measures the CLI from source (`deno run cli.ts`), `--bin
 * PATH` another binary (default `dist/scout-ai`).
 */
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { generateStore, type StoreStats } from "./prov_store.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const args = process.argv.slice(2);
const values = (name: string) =>
  args.flatMap((a, i) => (a === `--${name}` && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const scales = values("scale").map(Number);
const runs = Number(values("runs")[0] ?? 5);
const bin = resolve(values("bin")[0] ?? join(ROOT, "dist/scout-ai"));
const withDeno = args.includes("--deno");

function timed(cmd: string): { seconds: number; kb: number } {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", "sh", "-c", cmd], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const [s, kb] = r.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  return { seconds: s!, kb: kb! };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `runs` pairs of (cat, cmd): medians of both times and of the per-pair ratios. */
function measure(
  cmd: string,
  cat: string,
): { seconds: number; cat: number; ratio: number; mb: number } {
  const pairs = Array.from({ length: runs }, () => {
    const c = timed(cat);
    return { c, m: timed(cmd) };
  });
  return {
    seconds: median(pairs.map((p) => p.m.seconds)),
    cat: median(pairs.map((p) => p.c.seconds)),
    ratio: median(pairs.map((p) => p.m.seconds / p.c.seconds)),
    mb: Math.max(...pairs.map((p) => p.m.kb)) / 1024,
  };
}

async function store(scale: number): Promise<{ dir: string; stats: StoreStats }> {
  const dir = join(ROOT, "bench/out", `prov-${scale}`);
  const meta = join(dir, "store.json");
  if (!existsSync(meta)) {
    const stats = await generateStore(dir, { scale });
    Deno.writeTextFileSync(meta, JSON.stringify(stats, null, 2) + "\n");
  }
  return { dir, stats: JSON.parse(readFileSync(meta, "utf8")) };
}

const rows: string[] = [];
for (const scale of scales.length > 0 ? scales : [1, 0.1]) {
  const { dir, stats } = await store(scale);
  const cat = `find ${dir} -type f -print0 | xargs -0 cat > /dev/null`;
  timed(cat); // warm the page cache
  const prov = (exe: string, extra: string) =>
    `${exe} llm prov ${dir}/session.chat --jobs-dir ${dir}/jobs ${extra} > /dev/null`;
  const exes: [string, string][] = [["binary", bin]];
  if (withDeno) {
    exes.push([
      "deno run",
      `${ROOT}/tools/deno run -q -P=scout --config=${ROOT}/deno.json ${ROOT}/cli.ts`,
    ]);
  }
  for (const [name, exe] of exes) {
    for (const [view, extra] of [["--json", "--json"], ["tree", ""]] as const) {
      const m = measure(prov(exe, extra), cat);
      rows.push(
        `| ${stats.jobs} | ${stats.chats} | ${
          (stats.bytes / 1e6).toFixed(0)
        } | ${name} | ${view} | ` +
          `${m.seconds.toFixed(2)} | ${m.mb.toFixed(0)} | ${m.cat.toFixed(2)} | ` +
          `${m.ratio.toFixed(1)}× |`,
      );
    }
  }
}
console.log(
  "| jobs | chats | MB | runtime | view | wall s (median) | peak RSS MB | cat s | ratio to cat |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
