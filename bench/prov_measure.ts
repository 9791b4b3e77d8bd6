/**
 * Measures `scout-ai llm prov` on generated stores (issues 5 and 16): wall
 * time and peak RSS of the tree and of `--json`, against `cat`-ing every
 * file of the store (page cache warm), at every size from a tenth of the
 * 200 MB bench store to ten times it — one table.
 *
 *   tools/deno task build
 *   tools/deno run -A bench/prov_measure.ts                       # scales 0.1 1 3 10
 *   tools/deno run -A bench/prov_measure.ts --scale 1 --runs 3 --deno
 *   tools/deno run -A bench/prov_measure.ts --baseline /tmp/scout-old
 *
 * Stores are generated on first use into `bench/out/prov-<scale>` (git-ignored;
 * scale 10 is 20,000 jobs / ~100,000 chats / ~2.1 GB, written in ~40 s, using
 * disk, not memory) by `bench/prov_store.ts`. Each run of `prov` follows a run
 * of `cat` (so both see the same machine: a shared host's speed drifts by
 * 10–20% over minutes); the ratio is the median of the per-pair ratios, times
 * are medians, RSS is the maximum over the runs (`/usr/bin/time -f %M`).
 * Scales of 10 and more run once (`--big-runs N` to change it). `--deno` also
 * measures the CLI from source (`deno run cli.ts`), `--bin PATH` another
 * binary (default `dist/scout-ai`). `--baseline PATH` measures an earlier
 * binary the same way, interleaved, and checks that both print the same
 * bytes for the tree and `--json` at every size (the `same` column: a sha256
 * of each output); with `--all-views` also for every other view (`-c`, `-l`,
 * `--flow`, `--evidence`, `--dot`, `--tools`, `--by`, `--mermaid`, `--html`),
 * untimed, listed under the table.
 */
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { generateStore, type StoreStats } from "./prov_store.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const args = process.argv.slice(2);
const values = (name: string) =>
  args.flatMap((a, i) => (a === `--${name}` && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const scales = values("scale").map(Number);
const runs = Number(values("runs")[0] ?? 3);
const bigRuns = Number(values("big-runs")[0] ?? 1);
const bin = resolve(values("bin")[0] ?? join(ROOT, "dist/scout-ai"));
const baseline = values("baseline")[0];
const withDeno = args.includes("--deno");
const allViews = args.includes("--all-views");

/** The views `--all-views` compares with the baseline (the page is written to a file). */
const OTHER_VIEWS = [
  "-c",
  "-l",
  "-f",
  "-c -f",
  "-e",
  "--dot -",
  "--tools",
  "--by agent,model",
  "--mermaid",
  "--html /dev/stdout",
];

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
  runs: number,
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

/** sha256 of what a command prints. */
function outputDigest(cmd: string): string {
  const r = spawnSync("sh", ["-c", cmd], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return createHash("sha256").update(r.stdout).digest("hex");
}

const rows: string[] = [];
const viewChecks: string[] = [];
for (const scale of scales.length > 0 ? scales : [0.1, 1, 3, 10]) {
  const { dir, stats } = await store(scale);
  const n = scale >= 10 ? bigRuns : runs;
  const cat = `find ${dir} -type f -print0 | xargs -0 cat > /dev/null`;
  timed(cat); // warm the page cache
  const prov = (exe: string, extra: string) =>
    `${exe} llm prov ${dir}/session.chat --jobs-dir ${dir}/jobs ${extra}`;
  const exes: [string, string][] = [["binary", bin]];
  if (baseline !== undefined) exes.push(["baseline", resolve(baseline)]);
  if (withDeno) {
    exes.push([
      "deno run",
      `${ROOT}/tools/deno run -q -A --config=${ROOT}/deno.json ${ROOT}/cli.ts`,
    ]);
  }
  if (allViews && baseline !== undefined) {
    const differ = OTHER_VIEWS.filter((v) =>
      outputDigest(prov(bin, v)) !== outputDigest(prov(resolve(baseline), v))
    );
    viewChecks.push(
      `${stats.jobs} jobs: ${
        OTHER_VIEWS.length - differ.length
      } of ${OTHER_VIEWS.length} other views ` +
        (differ.length === 0 ? "identical" : `identical; **differ: ${differ.join(", ")}**`),
    );
  }
  for (const [view, extra] of [["tree", ""], ["--json", "--json"]] as const) {
    const same = baseline === undefined
      ? ""
      : outputDigest(prov(bin, extra)) === outputDigest(prov(resolve(baseline), extra))
      ? " yes |"
      : " **NO** |";
    for (const [name, exe] of exes) {
      const m = measure(prov(exe, extra) + " > /dev/null", cat, n);
      rows.push(
        `| ${stats.jobs} | ${stats.chats} | ${
          (stats.bytes / 1e6).toFixed(0)
        } | ${name} | ${view} | ` +
          `${m.seconds.toFixed(2)} | ${m.mb.toFixed(0)} | ${m.cat.toFixed(2)} | ` +
          `${m.ratio.toFixed(1)}× |${
            name === "binary" ? same : baseline === undefined ? "" : " |"
          }`,
      );
      console.error(rows.at(-1));
    }
  }
}
const sameHead = baseline === undefined ? "" : " same output |";
console.log(
  `| jobs | chats | MB | runtime | view | wall s (median) | peak RSS MB | cat s | ratio to cat |${sameHead}`,
);
console.log(`|---|---|---|---|---|---|---|---|---|${baseline === undefined ? "" : "---|"}`);
for (const r of rows) console.log(r);
if (viewChecks.length > 0) console.log(["", ...viewChecks.map((c) => `- ${c}`)].join("\n"));
