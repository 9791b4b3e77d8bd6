/**
 * How long the store-cleaning commands take on a store of a research group's
 * size (R120-1): `llm cache clean --older 30d` removing N cache entries
 * (3.7 kB each, all 100 days old, each under its key's lock) and `system
 * clean all --older 30d` removing M done jobs (result, `.info` naming its
 * dependency, a `.files/` log; chains of 10, all 100 days old, each under its
 * persist lock), each timed as the CLI from source in a subprocess, the
 * dry run first (it removes nothing), on a fresh store per run.
 *
 * Run: `tools/deno run -A bench/store_clean_measure.ts [ENTRIES] [JOBS] [RUNS]`
 * (defaults 10000 1000 3).
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const arg = (i: number, d: number) => Number(Deno.args[i] ?? d);
const [ENTRIES, JOBS, RUNS] = [arg(0, 10_000), arg(1, 1_000), arg(2, 3)];
const cli = new URL("../cli.ts", import.meta.url).pathname;
const old = new Date(Date.now() - 100 * 86_400_000);

function cacheStore(home: string): void {
  const dir = join(home, "var", "cache", "ask");
  mkdirSync(dir, { recursive: true });
  const text = JSON.stringify({ v: 2, items: [{ type: "text", text: "x".repeat(3_600) }] });
  for (let i = 0; i < ENTRIES; i++) {
    const file = join(dir, `${i.toString(16).padStart(64, "0")}.json`);
    writeFileSync(file, text);
    utimesSync(file, old, old);
  }
}

function jobStore(home: string): void {
  const dir = join(home, "var", "jobs", "Bench", "step");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < JOBS; i++) {
    const path = join(dir, `Default_${i.toString(16).padStart(32, "0")}`);
    const dep = i % 10 === 0
      ? []
      : [join(dir, `Default_${(i - 1).toString(16).padStart(32, "0")}`)];
    const info = {
      status: "done",
      pid: 1,
      pid_hostname: "bench",
      task_name: "step",
      workflow: "Bench",
      inputs: [i],
      input_names: ["n"],
      type: "string",
      dependencies: dep,
    };
    writeFileSync(path, `result ${i}\n`);
    writeFileSync(path + ".info", JSON.stringify(info));
    mkdirSync(join(path + ".files", "log"), { recursive: true });
    writeFileSync(join(path + ".files", "log", "step.chat"), "user:\n\nhi\n");
    for (const f of [path, path + ".info"]) utimesSync(f, old, old);
  }
}

async function timed(home: string, args: string[]): Promise<{ ms: number; out: string }> {
  const t0 = performance.now();
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", cli, ...args],
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  const out = new TextDecoder().decode(r.stdout).trim().split("\n").at(-1) ?? "";
  if (!r.success) throw new Error(new TextDecoder().decode(r.stderr));
  return { ms, out };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: Record<string, number[]> = {};
const last: Record<string, string> = {};
for (let run = 0; run < RUNS; run++) {
  const root = await Deno.makeTempDir({ prefix: "scout-clean-bench-" });
  const home = join(root, "home");
  cacheStore(home);
  jobStore(home);
  const steps: [string, string[]][] = [
    ["version (start-up)", ["--version"]],
    [`llm cache clean --dry-run (${ENTRIES})`, [
      "llm",
      "cache",
      "clean",
      "--older",
      "30d",
      "--dry-run",
      "--json",
    ]],
    [`llm cache clean (${ENTRIES})`, ["llm", "cache", "clean", "--older", "30d"]],
    [`system clean --dry-run (${JOBS})`, [
      "system",
      "clean",
      "all",
      "--older",
      "30d",
      "--dry-run",
      "--json",
    ]],
    [`system clean (${JOBS})`, ["system", "clean", "all", "--older", "30d", "--json"]],
  ];
  for (const [name, args] of steps) {
    const { ms, out } = await timed(home, args);
    (rows[name] ??= []).push(ms);
    last[name] = out.length > 120 ? out.slice(0, 117) + "..." : out;
  }
  await Deno.remove(root, { recursive: true });
}
for (const [name, ms] of Object.entries(rows)) {
  console.log(
    `${name.padEnd(36)} median ${median(ms).toFixed(0).padStart(6)} ms  (${
      ms.map((m) => m.toFixed(0)).join(", ")
    })`,
  );
}
for (const [name, out] of Object.entries(last)) {
  if (!out.startsWith("{")) console.log(`${name}: ${out}`);
}
