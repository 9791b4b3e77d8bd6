/**
 * Cold start: wall time of `dist/scout-ai --version` (target ≤ 15 ms median)
 * and of `deno task scout --version`, each spawned as a real process 20
 * times after 3 warmup runs. The binary is built first with exactly the
 * `deno task build` command. Run with `tools/deno task bench` (or
 * `tools/deno bench -P=test bench/cold_start_bench.ts`); medians are printed
 * after the table.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const DENO = Deno.execPath();
const BINARY = join(ROOT, "dist", "scout-ai");
const WARMUP = 3;
const RUNS = 20;

const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
const [buildCmd, ...buildArgs] = String(config.tasks.build).split(/\s+/);
const built = await new Deno.Command(join(ROOT, buildCmd!), {
  args: buildArgs,
  cwd: ROOT,
  stdout: "null",
  stderr: "piped",
}).output();
if (!built.success) throw new Error(new TextDecoder().decode(built.stderr));

const timings: Record<string, number[]> = { binary: [], task: [] };

/** Spawns synchronously: one process at a time, timed from spawn to exit. */
function timed(key: string, cmd: string, args: string[]): void {
  const t = performance.now();
  const out = new Deno.Command(cmd, { args, cwd: ROOT, stdout: "piped", stderr: "null" })
    .outputSync();
  timings[key]!.push(performance.now() - t);
  if (!out.success || !new TextDecoder().decode(out.stdout).startsWith(config.version)) {
    throw new Error(`${cmd} ${args.join(" ")} failed`);
  }
}

Deno.bench({
  name: "dist/scout-ai --version",
  group: "cold start",
  baseline: true,
  warmup: WARMUP,
  n: RUNS,
  fn: () => timed("binary", BINARY, ["--version"]),
});

Deno.bench({
  name: "deno task scout --version",
  group: "cold start",
  warmup: WARMUP,
  n: RUNS,
  fn: () => timed("task", DENO, ["task", "-q", "scout", "--version"]),
});

function median(xs: number[]): number {
  const s = xs.slice(WARMUP).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

globalThis.addEventListener("unload", () => {
  if (timings.binary!.length === 0) return;
  console.log(
    `\ncold start (median of ${timings.binary!.length - WARMUP} spawns): ` +
      `dist/scout-ai --version ${median(timings.binary!).toFixed(1)} ms (target ≤ 15 ms), ` +
      `deno task scout --version ${median(timings.task!).toFixed(1)} ms`,
  );
});
