/**
 * The floor under `scout-ai llm prov` on a generated store (issue 5): how
 * long one thread takes just to read every chat of the store (what `cat`
 * does), to read and parse them, and to extract their facts (read, parse,
 * receipts, evidence: the per-chat work of the walk), in one process, JIT
 * warm (median of 5 passes after one warm-up pass). The walk's other work
 * (jobs, report, rendering) and process start come on top.
 *
 *   tools/node_modules/.bin/bun bench/prov_floor.ts [--scale 1]   # the binary's runtime
 *   tools/deno run -A bench/prov_floor.ts [--scale 1]
 *
 * Uses the store of `bench/prov_measure.ts` (`bench/out/prov-<scale>`,
 * generated there on first use).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "../src/chat/parse.ts";
import { provenanceChatFiles } from "../src/provenance/collect.ts";
import { readChatFacts } from "../src/provenance/chat_facts.ts";

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const args = process.argv.slice(2);
const scale = args.includes("--scale") ? args[args.indexOf("--scale") + 1]! : "1";
const dir = join(ROOT, "bench/out", `prov-${scale}`);
const files = provenanceChatFiles(join(dir, "session.chat"), {
  cwd: dir,
  jobRoots: [join(dir, "jobs")],
  onError: () => {},
});
const utf8 = new TextDecoder("utf-8", { fatal: false });

function median(run: () => number): { ms: number; n: number } {
  let n = run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    n = run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { ms: times[2]!, n };
}

const rows: [string, { ms: number; n: number }][] = [
  ["read every chat (bytes)", median(() => files.reduce((n, f) => n + readFileSync(f).length, 0))],
  [
    "read + decode + parse",
    median(() => files.reduce((n, f) => n + parse(utf8.decode(readFileSync(f))).length, 0)),
  ],
  [
    "read + parse + extract facts",
    median(() => files.reduce((n, f) => n + readChatFacts(f).evidence.chat.length, 0)),
  ],
];
console.log(`${files.length} chats of ${dir}, one thread, JIT warm (median of 5)`);
console.log("| step | ms |");
console.log("|---|---|");
for (const [name, r] of rows) console.log(`| ${name} | ${r.ms.toFixed(0)} |`);
