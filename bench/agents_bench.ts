/**
 * Agents bench: a scripted delegation scenario (`agents_scenario.ts`: Root,
 * three specialists, one of them with its own society, 20 rounds, 7 model
 * requests and 4 delegated calls a round) run by scout-ai
 * (`agents_scout.ts`) and by the OpenAI Agents SDK for JavaScript
 * (`agents_sdk.ts`, `@openai/agents`) against one loopback provider server
 * (tests/support/provider_server.ts, in this process, answering at once).
 * Each harness runs in its own process (so its peak RSS is its own), back to
 * back, `--runs N` times (default 3), alternating which goes first, under
 * Deno (`deno run`, how the source runs) and under Bun (the runtime of the
 * shipped binary; `--runtime deno|bun|both`, default both). The children use
 * `node:` APIs only, so the same scripts run under both.
 *
 * Figures (medians over rounds 2–20 of every run; round 1 is reported apart
 * as the cold round):
 * - harness overhead per round = the round's wall time in the child minus
 *   the server's busy time for that round's requests (union of each
 *   request's arrival → first-byte interval; arrival is when the server's
 *   handler starts, so reading and parsing the body is the server's time);
 * - overhead per delegated call = (time from Root's tool-call reply to the
 *   arrival of Root's next request, minus the server's busy time in between)
 *   / 4, all in the server's clock;
 * - "best" = the smallest round of all runs (the least disturbed by other
 *   processes on a shared machine);
 * - CPU / round = the child's user + system CPU time over rounds 2–20 / 19
 *   (steadier than wall time when the machine is busy), with the system
 *   (kernel) part in brackets — where file creation shows;
 * - peak RSS = the child's `VmHWM`;
 * - saved messages = messages (scout-ai: `.chat` files, parsed) or items
 *   (SDK: run histories, JSON) found on disk after the run, checked against
 *   the count the scenario implies; a mismatch fails the bench;
 * - the floor row (`agents_floor.ts`): the same requests, in the same order
 *   and concurrency, from a bare `fetch` client that does nothing else — what
 *   any client pays here beyond the server's handler time (the loopback HTTP
 *   stacks, each process waking when a request or reply reaches it); and
 *   the same through the `openai` client, which both harnesses use. The
 *   target lines give the figures as measured; two more lines per runtime
 *   give them less each floor's (the ratio with the floor subtracted from
 *   both harnesses).
 *
 * Run: `tools/deno task bench-agents [--runs N] [--runtime deno|bun|both] [--hops]`
 * (prints a markdown table and one target line per runtime; `--hops` adds
 * where each round's delegation window goes, hop by hop).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RecordedRequest, startProviderServer } from "../tests/support/provider_server.ts";
import {
  type ChildReport,
  DELEGATIONS_PER_ROUND,
  reply,
  REQUESTS_PER_ROUND,
  ROUNDS,
} from "./agents_scenario.ts";
import { hopLine, hopsOf } from "./agents_hops.ts";
import { createCostMs, type CreateGauge, gaugeText } from "./create_gauge.ts";
import { benchRuntimes as runtimes, type Runtime } from "./runtimes.ts";
import { median } from "./stats.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(HERE);

/** A harness variant: child script, extra args, expected saved counts. */
interface Variant {
  name: string;
  script: string;
  args: string[];
  /** Expected `saved` of {@link ChildReport}. */
  expected: ChildReport["saved"];
}

// scout-ai chat: system + socialize line, then per round user, meta,
// 3 × (function_call, function_call_output), meta, assistant. Society logs per
// round: SpecA/SpecB/Leaf system, user, meta, assistant; SpecC system,
// socialize, user, meta, function_call, function_call_output, meta, assistant.
const SCOUT_SAVED = { chat: 2 + 10 * ROUNDS, specialists: 20 * ROUNDS, files: 1 + 4 * ROUNDS };
// SDK history per round: user, 3 function_call, 3 function_call_result,
// message; specialist runs: user + message (SpecC: + function_call + result).
const SDK_SAVED = { chat: 8 * ROUNDS, specialists: 10 * ROUNDS, files: 1 + 4 * ROUNDS };

const VARIANTS: Variant[] = [
  { name: "scout-ai", script: "agents_scout.ts", args: [], expected: SCOUT_SAVED },
  {
    name: "scout-ai (--no-cache)",
    script: "agents_scout.ts",
    args: ["--no-cache"],
    expected: SCOUT_SAVED,
  },
  { name: "@openai/agents 0.20.0", script: "agents_sdk.ts", args: [], expected: SDK_SAVED },
  {
    name: "floor: bare fetch, no harness",
    script: "agents_floor.ts",
    args: [],
    expected: { chat: 0, specialists: 0, files: 0 },
  },
  {
    name: "floor: the openai client, no harness",
    script: "agents_floor.ts",
    args: ["--client", "openai"],
    expected: { chat: 0, specialists: 0, files: 0 },
  },
];

/** Measured figures of one child run. */
interface Measured {
  report: ChildReport;
  /** Overhead of each round, ms. */
  perRound: number[];
  /** Overhead per delegated call in each round, ms. */
  perCall: number[];
  /** Both, with the server's time starting once it had read the body (the earlier figures). */
  parsed: { perRound: number[]; perCall: number[] };
  /** Per round, the window's hops: `from → to` and ms from `from`'s first byte to `to`'s arrival. */
  hops: [string, number][][];
}

/** Where the server's time for a request starts: its arrival, or (earlier figures) its parsed body. */
export type Start = "arrivedAt" | "receivedAt";

function busy(reqs: RecordedRequest[], start: Start): number {
  const spans = reqs.map((r) => [r[start], r.firstByteAt ?? r.receivedAt] as const)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of spans) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}

/**
 * A run's overhead per round and per delegated call (see the module's figures).
 *
 * @param report the child's report
 * @param reqs the run's requests, as the server recorded them
 * @param start where the server's time for a request starts
 * @returns per round, the overhead of the round and per delegated call, ms
 */
export function overheads(
  report: ChildReport,
  reqs: RecordedRequest[],
  start: Start,
): { perRound: number[]; perCall: number[] } {
  const perRound: number[] = [];
  const perCall: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const round = reqs.slice(k * REQUESTS_PER_ROUND, (k + 1) * REQUESTS_PER_ROUND);
    perRound.push(report.roundsMs[k]! - busy(round, start));
    const first = round[0]!;
    const last = round.at(-1)!;
    const window = last[start] - (first.firstByteAt ?? first.receivedAt);
    perCall.push((window - busy(round.slice(1, -1), start)) / DELEGATIONS_PER_ROUND);
  }
  return { perRound, perCall };
}

function measure(report: ChildReport, reqs: RecordedRequest[]): Measured {
  if (reqs.length !== ROUNDS * REQUESTS_PER_ROUND) {
    throw new Error(`${report.harness}: ${reqs.length} requests, expected ${ROUNDS * 7}`);
  }
  return {
    report,
    ...overheads(report, reqs, "arrivedAt"),
    parsed: overheads(report, reqs, "receivedAt"),
    hops: hopsOf(reqs),
  };
}

async function runChild(
  rt: Runtime,
  v: Variant,
  url: string,
  dirs: string[],
): Promise<ChildReport> {
  const dir = await Deno.makeTempDir({ prefix: "scout-agents-bench-" });
  dirs.push(dir); // removed at the end, see agentsBench
  const [cmd, ...args] = rt.command(join(HERE, v.script), [url, dir, ...v.args]);
  const out = await new Deno.Command(cmd!, {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  if (out.code !== 0) {
    throw new Error(`${v.name} (${rt.name}) failed:\n${dec.decode(out.stderr)}`);
  }
  const report: ChildReport = JSON.parse(dec.decode(out.stdout).trim().split("\n").at(-1)!);
  for (const k of ["chat", "specialists", "files"] as const) {
    if (report.saved[k] !== v.expected[k]) {
      throw new Error(
        `${v.name}: saved ${k} = ${report.saved[k]}, expected ${v.expected[k]} (logs incomplete)`,
      );
    }
  }
  return report;
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

/** One table row and the figures the target line needs. */
function row(
  rt: Runtime,
  v: Variant,
  ms: Measured[],
): { text: string; round: number; call: number; parsed: { round: number; call: number } } {
  const warm = (f: (m: Measured) => number[]) => median(ms.flatMap((m) => f(m).slice(1)));
  const best = (f: (m: Measured) => number[]) => Math.min(...ms.flatMap((m) => f(m).slice(1)));
  const round = warm((m) => m.perRound);
  const call = warm((m) => m.perCall);
  const cold = median(ms.map((m) => m.perRound[0]!));
  const save = median(ms.map((m) => m.report.saveMs));
  const cpu = median(ms.map((m) => m.report.cpuMs / (ROUNDS - 1)));
  const sys = median(ms.map((m) => m.report.cpuSysMs / (ROUNDS - 1)));
  const rss = Math.max(...ms.map((m) => m.report.peakRssKiB)) / 1024;
  const s = ms[0]!.report.saved;
  const cells = [
    v.name,
    rt.name,
    `${f2(round)} (${f2(best((m) => m.perRound))})`,
    `${f2(call)} (${f2(best((m) => m.perCall))})`,
    `${f2(cpu)} (${f2(sys)})`,
    f1(cold),
    f1(save),
    f1(rss),
    s.files === 0
      ? "none (saves nothing)"
      : `${s.chat} + ${s.specialists} in ${s.files} files (= expected)`,
  ];
  const text = `| ${cells.join(" | ")} |`;
  const parsed = { round: warm((m) => m.parsed.perRound), call: warm((m) => m.parsed.perCall) };
  return { text, round, call, parsed };
}

function header(runs: number, createMs: CreateGauge): string {
  let load = "";
  try {
    load = `; load average ${
      Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ")
    }`;
  } catch { /* not Linux */ }
  return `Agents bench: ${ROUNDS} rounds × (${REQUESTS_PER_ROUND} model requests, ` +
    `${DELEGATIONS_PER_ROUND} delegated calls, 1 nested society), ${runs} run(s) per harness` +
    `${load}, ${navigator.hardwareConcurrency} CPUs; ` +
    `${gaugeText(createMs)}\n\n` +
    "| harness | runtime | overhead / round, ms: median r2–20 (best) | " +
    "overhead / delegated call, ms: median (best) | CPU / round, ms (r2–20; of it system) | " +
    "cold round 1, ms | save specialist logs, ms | peak RSS, MiB | saved messages (chat + specialists) |\n" +
    "|---|---|---:|---:|---:|---:|---:|---:|---|";
}

type Figures = { round: number; call: number };

function targetLine(rt: Runtime, scout: Figures, sdk: Figures) {
  const ratio = scout.round / sdk.round;
  const met = (ok: boolean) => ok ? "met" : "missed";
  return `Target (${rt.name}): scout-ai overhead ≤ 0.5× the SDK's (now ${f2(ratio)}×: ` +
    `${met(ratio <= 0.5)}) and ≤ 2 ms per delegated call (now ${f2(scout.call)} ms: ` +
    `${met(scout.call <= 2)}).`;
}

/** The target figures less a floor's: what is left is what the harness adds to that floor. */
function netLine(rt: Runtime, scout: Figures, sdk: Figures, floor: Figures, what: string): string {
  const ratio = (scout.round - floor.round) / (sdk.round - floor.round);
  const call = scout.call - floor.call;
  return `Net of ${what} (${rt.name}; subtracted from both harnesses): ` +
    `ratio ${f2(ratio)}× (${ratio <= 0.5 ? "≤" : ">"} 0.5), ` +
    `${f2(call)} ms per delegated call (${call <= 2 ? "≤" : ">"} 2); ` +
    `that floor: ${f2(floor.round)} ms a round, ${f2(floor.call)} ms a call.`;
}

/**
 * Runs every variant `runs` times under each runtime and prints the table.
 *
 * @param runs repetitions (each variant once per repetition)
 * @param which `deno`, `bun` or `both`
 * @param showHops also print where each round's delegation window goes
 */
export async function agentsBench(
  runs: number,
  which = "both",
  showHops = false,
): Promise<void> {
  const rts = runtimes(which);
  const results = new Map<string, Measured[]>();
  const keyOf = (rt: Runtime, v: Variant) => `${rt.name}\u0000${v.name}`;
  await using server = await startProviderServer({ fallback: reply });
  // Run directories are removed only at the end: removing one frees hundreds
  // of inodes, and on ext4 without a journal every create near them then
  // scans past them for minutes (design-notes, "Agents bench") — a cost the
  // next run would pay that no session of a user's does.
  const dirs: string[] = [];
  const createMs: CreateGauge = { before: createCostMs(dirs), after: NaN };
  try {
    for (let i = 0; i < runs; i++) {
      for (const rt of rts) {
        const order = i % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
        for (const v of order) {
          const from = server.requests.length;
          const report = await runChild(rt, v, server.url, dirs);
          const list = results.get(keyOf(rt, v)) ?? [];
          list.push(measure(report, server.requests.slice(from)));
          results.set(keyOf(rt, v), list);
        }
      }
    }
    createMs.after = createCostMs(dirs);
  } finally {
    for (const d of dirs) await Deno.remove(d, { recursive: true });
  }
  console.log(header(runs, createMs));
  const targets: string[] = [];
  const earlier: string[] = [];
  const hops: string[] = [];
  for (const rt of rts) {
    const rows = VARIANTS.map((v) => row(rt, v, results.get(keyOf(rt, v))!));
    for (const r of rows) console.log(r.text);
    if (showHops) {
      for (const v of VARIANTS) {
        hops.push(`${v.name}, ${rt.name}: ${hopLine(results.get(keyOf(rt, v))!)}`);
      }
    }
    const [scout, sdk] = [rows[0]!, rows[2]!];
    targets.push(
      targetLine(rt, scout, sdk),
      netLine(rt, scout, sdk, rows[3]!, "the transport floor"),
      netLine(rt, scout, sdk, rows[4]!, "the openai client's floor"),
    );
    earlier.push(
      `${rt.name}: ratio ${f2(scout.parsed.round / sdk.parsed.round)}×, ` +
        `${f2(scout.parsed.call)} ms per delegated call`,
    );
  }
  console.log(`\n${targets.join("\n")}`);
  console.log(
    "\nWith the server's time starting once it had read the body (the figures before " +
      `\`arrivedAt\`): ${earlier.join("; ")}.`,
  );
  if (showHops) {
    console.log(
      "\nThe delegation window by hop (median ms from the previous request's first byte to " +
        "this one's arrival, warm rounds; hops seen in under a quarter of the rounds left out):\n" +
        hops.map((h) => `- ${h}`).join("\n"),
    );
  }
}

if (import.meta.main) {
  const flag = (name: string) => {
    const i = Deno.args.indexOf(name);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  await agentsBench(
    Number(flag("--runs") ?? 3),
    flag("--runtime") ?? "both",
    Deno.args.includes("--hops"),
  );
}
