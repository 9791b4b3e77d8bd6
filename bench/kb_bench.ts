/**
 * Knowledge-base index: build time, query latency and memory at 1,000,000
 * associations (issue 12 targets: build ≤ 5 s, a 100-entity query ≤ 5 ms,
 * RSS ≤ 300 MB), and the same rows in `node:sqlite` for the store choice.
 *
 *   tools/deno run -A bench/kb_bench.ts                 # 1,000,000 associations, files store
 *   tools/deno run -A bench/kb_bench.ts --sqlite        # … and the SQLite alternative
 *   tools/deno run -A bench/kb_bench.ts --count 200000
 *
 * The TSV is generated (`tests/kb/generate.ts`: `:double` rows, 1–19
 * partners per source, two fields). Each build runs in a fresh child process
 * (`--child build`), whose peak RSS is the
 * figure reported (`VmHWM`); queries are timed in another child that opens the built
 * index cold (first query includes opening it), then 200 random 100-entity
 * queries (median, p95). `tools/deno task bench` runs the small Deno.bench
 * case below only.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { children, closeStores, databaseStore, openKnowledgeBase } from "../src/kb/database.ts";
import { registerDatabase } from "../src/kb/resolve.ts";
import { RACY_MS } from "../src/util/racy_stat.ts";
import { generateTsv } from "../tests/kb/generate.ts";

const args = Deno.args;
const flag = (name: string) => args.includes(name);
const value = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : dflt;
};

/** Peak RSS of this process image, MB (`VmHWM`; `maxRSS` would include the parent's before exec). */
function peakRssMB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
  return m ? Number(m[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length * 0.95)]!;
}

function sample(n: number, k: number, seed: number): number[] {
  let s = seed;
  const out: number[] = [];
  for (let i = 0; i < k; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(s % n);
  }
  return out;
}

/**
 * Waits until `file` has been unchanged for longer than `RACY_MS`: an index
 * built from a younger TSV is not trusted (R89-2) and would be rebuilt by the
 * next query, as a user's TSV, written long before, is not.
 */
function waitAged(file: string): void {
  const st = statSync(file);
  const wait = Math.max(st.mtimeMs, st.ctimeMs) + RACY_MS + 50 - Date.now();
  if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
}

/** Child: build the index of `<kb>` database `big`, print {ms, rss}. */
function childBuild(kbDir: string): void {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  databaseStore(openKnowledgeBase(kbDir), "big");
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, rssMB: peakRssMB() }));
}

/** Child: cold first query, then 200 random 100-entity queries. */
function childQuery(kbDir: string, sources: number): void {
  const kb = openKnowledgeBase(kbDir); // once, as a tool does
  const names = (idx: number[]) => idx.map((i) => `G${i}`);
  const t0 = performance.now();
  const first = children(kb, "big", names(sample(sources, 100, 1)));
  const coldMs = performance.now() - t0;
  const times: number[] = [];
  let found = first.length;
  for (let q = 0; q < 200; q++) {
    const ents = names(sample(sources, 100, q + 2));
    const t = performance.now();
    found += children(kb, "big", ents).length;
    times.push(performance.now() - t);
  }
  console.log(JSON.stringify({
    coldMs,
    medianMs: median(times),
    p95Ms: p95(times),
    found,
    rssMB: peakRssMB(),
  }));
}

/** Child: the same rows in node:sqlite (forward table + target index), build and query. */
async function childSqlite(tsv: string, dbFile: string, sources: number): Promise<void> {
  const { DatabaseSync } = await import("node:sqlite");
  const { readTsvHeader, eachAssociation } = await import("../src/kb/tsv.ts");
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const db = new DatabaseSync(dbFile);
  db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
  db.exec(
    "CREATE TABLE a(source TEXT, target TEXT, f1 TEXT, f2 TEXT, PRIMARY KEY(source, target)) WITHOUT ROWID",
  );
  const ins = db.prepare("INSERT OR REPLACE INTO a VALUES (?, ?, ?, ?)");
  db.exec("BEGIN");
  const header = readTsvHeader(tsv);
  eachAssociation(tsv, header, { source: 0, target: 1, info: [2, 3] }, (s, t, i) => {
    ins.run(s, t, i[0]!, i[1]!);
  });
  db.exec("COMMIT");
  db.exec("CREATE INDEX a_target ON a(target, source)");
  const buildMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const buildCpuMs = (cpu.user + cpu.system) / 1000;
  const q = db.prepare("SELECT source, target FROM a WHERE source = ? ORDER BY target");
  const times: number[] = [];
  for (let k = 0; k < 200; k++) {
    const ents = sample(sources, 100, k + 2).map((i) => `G${i}`);
    const t = performance.now();
    const out: string[] = [];
    for (const e of ents) {
      for (const r of q.all(e) as { source: string; target: string }[]) {
        out.push(`${r.source}~${r.target}`);
      }
    }
    times.push(performance.now() - t);
  }
  db.close();
  console.log(JSON.stringify({
    buildMs,
    buildCpuMs,
    medianMs: median(times),
    p95Ms: p95(times),
    sizeMB: statSync(dbFile).size / 1e6,
    rssMB: peakRssMB(),
  }));
}

async function child(mode: string, ...rest: string[]): Promise<Record<string, number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", import.meta.filename!, "--child", mode, ...rest],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (out.code !== 0) throw new Error(`child ${mode} failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

async function main(): Promise<void> {
  const count = Number(value("--count", "1000000"));
  const dir = mkdtempSync(join(tmpdir(), "kb-bench-"));
  try {
    const tsv = join(dir, "big.tsv");
    const g0 = performance.now();
    const { sources } = generateTsv(tsv, count);
    const tsvMB = statSync(tsv).size / 1e6;
    console.log(
      `generated ${count.toLocaleString("en")} associations (${
        sources.length.toLocaleString("en")
      } sources, ` +
        `${tsvMB.toFixed(1)} MB) in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
    );
    waitAged(tsv);
    const kbDir = join(dir, "kb");
    registerDatabase(kbDir, "big", tsv);
    const b = await child("build", kbDir);
    const idxMB = statSync(join(kbDir, ".scout-ai-index", "big.idx")).size / 1e6;
    console.log(
      `files store: build ${(b.ms! / 1000).toFixed(2)} s wall, ${
        (b.cpuMs! / 1000).toFixed(2)
      } s CPU (target ≤ 5 s), peak RSS ${b.rssMB!.toFixed(0)} MB (≤ 300 MB), index ${
        idxMB.toFixed(1)
      } MB`,
    );
    const q = await child("query", kbDir, String(sources.length));
    console.log(
      `files store: 100-entity query median ${q.medianMs!.toFixed(2)} ms, p95 ${
        q.p95Ms!.toFixed(2)
      } ms (target ≤ 5 ms); first query incl. opening ${q.coldMs!.toFixed(1)} ms; ` +
        `query process RSS ${q.rssMB!.toFixed(0)} MB`,
    );
    if (flag("--sqlite")) {
      const s = await child("sqlite", tsv, join(dir, "big.sqlite"), String(sources.length));
      console.log(
        `node:sqlite: build ${(s.buildMs! / 1000).toFixed(2)} s wall, ${
          (s.buildCpuMs! / 1000).toFixed(2)
        } s CPU, 100-entity query median ${s.medianMs!.toFixed(2)} ms, p95 ${
          s.p95Ms!.toFixed(2)
        } ms, file ${s.sizeMB!.toFixed(1)} MB, peak RSS ${s.rssMB!.toFixed(0)} MB`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let benchKb: ReturnType<typeof openKnowledgeBase> | null = null;
let benchSources = 0;
Deno.bench({ name: "kb: 100-entity query, 100,000 associations", n: 200, warmup: 5 }, () => {
  if (benchKb === null) {
    const dir = mkdtempSync(join(tmpdir(), "kb-bench-"));
    benchSources = generateTsv(join(dir, "big.tsv"), 100_000).sources.length;
    waitAged(join(dir, "big.tsv"));
    registerDatabase(join(dir, "kb"), "big", join(dir, "big.tsv"));
    benchKb = openKnowledgeBase(join(dir, "kb"));
    globalThis.addEventListener("unload", () => {
      closeStores();
      rmSync(dir, { recursive: true, force: true });
    });
  }
  const ents = sample(benchSources, 100, Math.floor(Math.random() * 1e6)).map((i) => `G${i}`);
  children(benchKb, "big", ents);
});

if (import.meta.main) {
  const i = args.indexOf("--child");
  if (i >= 0) {
    const [mode, a, b, c] = args.slice(i + 1);
    if (mode === "build") childBuild(a!);
    else if (mode === "query") childQuery(a!, Number(b));
    else if (mode === "sqlite") await childSqlite(a!, b!, Number(c));
  } else {
    await main();
  }
}
