/**
 * What an offline miss's hint costs in a big inference cache (R120-2): one
 * real round is recorded through `llm ask` against the loopback provider, then
 * copied into `--entries` entries (default 100,000) under other keys, each of
 * another conversation (another messages part), optionally padded to `--kb`
 * KB (a long history's reply), and indexed as a store indexes them
 * (`cache_index.ts`) — or, with `--legacy`, not (a cache older than its
 * index: the hint scans it, within its bound). Then, with `--runs`
 * repetitions (median):
 *
 * - in process, `missHint` for a new question (no entry of the same
 *   messages) and for the recorded question asked with other parameters
 *   (the recorded entry is the hint), with the entries each search read;
 * - the CLI (`llm ask --offline`, a subprocess from source): the new
 *   question's miss, the near miss, and a hit, as the reviewer timed them;
 * - the write path: what indexing one stored round costs (`indexEntry`).
 *
 *   tools/deno run -A bench/cache_miss_hint_bench.ts [--entries 100000] [--kb 0] [--runs 3] [--legacy]
 *     [--binary dist/scout-ai]   # the CLI rows (and the recording) with a built binary
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CacheKeyParts } from "../src/llm/cache_key.ts";
import { INDEX_DIR, indexEntry } from "../src/llm/cache_index.ts";
import { missHint, nearSearch } from "../src/llm/cache_miss_hint.ts";
import { runCommand, runScout } from "../tests/support/cli.ts";
import { startProviderServer } from "../tests/support/provider_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    entries: { type: "string", default: "100000" },
    kb: { type: "string", default: "0" },
    runs: { type: "string", default: "3" },
    legacy: { type: "boolean", default: false },
    binary: { type: "string" },
  },
});
const ENTRIES = Number(values.entries);
const KB = Number(values.kb);
const RUNS = Number(values.runs);

const root = await Deno.makeTempDir({ prefix: "scout-miss-hint-bench-" });
const home = join(root, "home");
const cache = join(home, "var", "cache", "ask");
const server = await startProviderServer({ fallback: () => ({ text: "Baked." }) });
const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
const ask = (question: string, ...more: string[]) => {
  const args = [
    "llm",
    "ask",
    "-b",
    "openai",
    "-O",
    `url=${server.url}`,
    "-m",
    "m",
    ...more,
    question,
  ];
  const o = { env, cwd: root };
  return values.binary ? runCommand(values.binary, args, o) : runScout(args, o);
};

/** A random hex string of `n` chars. */
function hex(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n / 2));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Records the one real round, and copies it into `ENTRIES` entries in all. */
async function buildStore(): Promise<{ parts: CacheKeyParts }> {
  const rec = await ask("bake");
  if (rec.code !== 0) throw new Error(`recording failed: ${rec.stderr}`);
  const [name] = readdirSync(cache).filter((n) => n.endsWith(".json"));
  const recorded = JSON.parse(readFileSync(join(cache, name!), "utf8"));
  const copy = structuredClone(recorded);
  if (KB > 0) copy.items[0].text = "x".repeat(KB * 1024);
  mkdirSync(cache, { recursive: true });
  for (let i = 1; i < ENTRIES; i++) {
    copy.parts.messages = hex(16);
    const key = hex(64);
    writeFileSync(join(cache, `${key}.json`), JSON.stringify(copy) + "\n");
    if (!values.legacy) indexEntry(cache, key, copy.parts.messages);
  }
  if (values.legacy) rmSync(join(cache, INDEX_DIR), { recursive: true, force: true });
  return recorded;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The median wall time of `RUNS` calls of `fn`, in ms, and its last result. */
async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; last: T }> {
  const ms: number[] = [];
  let last!: T;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    last = await fn();
    ms.push(performance.now() - t);
  }
  return { ms: median(ms), last };
}

/** µs per {@link indexEntry} of a stored round, in a directory of its own (median of `RUNS` × 2,000). */
function indexCost(): number {
  const dir = join(root, "write-path");
  mkdirSync(dir);
  const us: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const lines = Array.from({ length: 2000 }, () => [hex(64), hex(16)] as const);
    const t = performance.now();
    for (const [key, messages] of lines) indexEntry(dir, key, messages);
    us.push((performance.now() - t) * 1000 / lines.length);
  }
  return median(us);
}

try {
  const t0 = performance.now();
  const recorded = await buildStore();
  const size = readFileSync(join(cache, readdirSync(cache).find((n) => n.endsWith(".json"))!))
    .length;
  console.log(
    `store: ${ENTRIES} entries of ~${size} bytes, built in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s (${cache})`,
  );
  const origin = { endpoint: "", backend: "openai", model: "m" };
  const fresh = { ...origin, parts: { ...recorded.parts, messages: hex(16) } };
  const near = { ...origin, parts: { ...recorded.parts, params: hex(16) } };
  const rows: [string, number, string][] = []; // what, ms (µs for the write path), what it said
  const reads = (req: typeof fresh) => `(${nearSearch(cache, req).read} entries read) `;
  const inFresh = await timed(() => missHint(cache, fresh));
  rows.push(["missHint, new question (ms)", inFresh.ms, reads(fresh) + String(inFresh.last)]);
  const inNear = await timed(() => missHint(cache, near));
  rows.push(["missHint, other parameters (ms)", inNear.ms, reads(near) + String(inNear.last)]);
  const cliFresh = await timed(() => ask("a new question", "--offline"));
  rows.push(["llm ask --offline, new question, miss (ms)", cliFresh.ms, cliFresh.last.stderr]);
  const cliNear = await timed(() => ask("bake", "--offline", "-O", "temperature=0.5"));
  rows.push(["llm ask --offline, other params, miss (ms)", cliNear.ms, cliNear.last.stderr]);
  const hit = await timed(() => ask("bake", "--offline"));
  rows.push(["llm ask --offline, recorded, hit (ms)", hit.ms, `exit ${hit.last.code}`]);
  rows.push(["write path: indexEntry, one stored round (µs)", indexCost(), ""]);
  for (const [what, ms, said] of rows) {
    console.log(`${what.padEnd(48)} ${ms.toFixed(1).padStart(9)}  ${said.trim().slice(0, 160)}`);
  }
} finally {
  await server.close();
  await Deno.remove(root, { recursive: true });
}
