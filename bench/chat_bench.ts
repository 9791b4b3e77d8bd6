/**
 * `.chat` parse and print throughput on a generated, realistic 50 MB corpus
 * (`bench/chat_corpus.ts`). Target: ≥ 200 MB/s each (the Ruby original does
 * about 21 MB/s parsing and 34 MB/s printing). MB = 10^6 bytes of UTF-8 chat
 * text. Run with `tools/deno task bench` (or
 * `tools/deno bench -P=test bench/chat_bench.ts`); a throughput summary is
 * printed after the table.
 *
 * Group `ask`: a 20,000-message chat as `llm ask --dry-run` reads it, as the
 * `-c` history and as the `-t` template (in-process, no provider): the two
 * should cost about the same (R164-1: the template path was quadratic, 11 s).
 */
import { join } from "node:path";
import { parse, print } from "../src/chat/mod.ts";
import type { Chat } from "../src/chat/mod.ts";
import { main } from "../src/cli/main.ts";
import { bufferIo } from "../tests/support/buffer_io.ts";
import { chatCorpus } from "./chat_corpus.ts";

const { files, bytes } = chatCorpus(50);
const parsed: Chat[] = files.map((f) => parse(f));
const printedBytes = parsed.reduce((n, c) => n + new TextEncoder().encode(print(c)).length, 0);
const MB = bytes / 1e6;
const timings: Record<string, number[]> = { parse: [], print: [] };
const WARMUP = 3;

/**
 * Forces V8 to flatten a string built by concatenation (as writing it out
 * would), so print is measured producing usable text, not a lazy rope.
 */
function flat(s: string): number {
  return /\uffff$/.test(s) ? 0 : s.length;
}

Deno.bench({
  name: `parse: ${files.length} chats, ${MB.toFixed(1)} MB`,
  group: "chat",
  baseline: true,
  warmup: WARMUP,
  n: 15,
  fn(b) {
    b.start();
    const t = performance.now();
    let n = 0;
    for (const f of files) n += parse(f).length;
    timings.parse!.push(performance.now() - t);
    b.end();
    if (n === 0) throw new Error("nothing parsed");
  },
});

Deno.bench({
  name: `print: ${parsed.length} chats, ${(printedBytes / 1e6).toFixed(1)} MB out`,
  group: "chat",
  warmup: WARMUP,
  n: 15,
  fn(b) {
    b.start();
    const t = performance.now();
    let n = 0;
    for (const c of parsed) n += flat(print(c));
    timings.print!.push(performance.now() - t);
    b.end();
    if (n === 0) throw new Error("nothing printed");
  },
});

/** Median of the measured runs (the first WARMUP calls are warmup). */
/**
 * Inputs that make naive regexes backtrack (a cmd block full of `:--` without a
 * closer, long unclosed tag lines, thousands of xml openers and `[[` lines):
 * parse must stay linear.
 */
const adversarial = [
  "s:-- ls {{{\n" + ":--".repeat(400_000) + "\n" + ":-- ".repeat(200_000),
  "<a " + "x".repeat(1_000_000) + "\n" + "</b".repeat(300_000),
  "<a>\n".repeat(200_000) + "</a>\n" + "[[\n".repeat(200_000),
  'a="' + '" x'.repeat(300_000),
].join("\nuser:\n");

Deno.bench({
  name: `parse: adversarial lines, ${(adversarial.length / 1e6).toFixed(1)} M chars`,
  group: "adversarial",
  n: 5,
  fn() {
    if (parse(adversarial).length === 0) throw new Error("nothing parsed");
  },
});

const askDir = await Deno.makeTempDir({ prefix: "scout-chat-bench-" });
const askChat = join(askDir, "long.chat");
await Deno.writeTextFile(
  askChat,
  Array.from({ length: 20_000 }, (_, i) => `user: line ${i}\n`).join(""),
);

/** `llm ask --dry-run <flag> long.chat hi` in-process, timed alone; fails unless it succeeds. */
async function askDryRun(b: Deno.BenchContext, flag: "-c" | "-t"): Promise<void> {
  const io = bufferIo({ cwd: askDir, env: { SCOUT_HOME: join(askDir, "home") } });
  b.start();
  const code = await main(["llm", "ask", "--dry-run", flag, askChat, "hi"], io);
  b.end();
  if (code !== 0) throw new Error(`llm ask ${flag} exit ${code}: ${io.stderrText()}`);
}

Deno.bench({
  name: "llm ask --dry-run -c: 20,000-message history",
  group: "ask",
  baseline: true,
  n: 10,
  async fn(b) {
    await askDryRun(b, "-c");
  },
});

Deno.bench({
  name: "llm ask --dry-run -t: 20,000-message template",
  group: "ask",
  n: 10,
  async fn(b) {
    await askDryRun(b, "-t");
  },
});

function median(xs: number[]): number {
  const s = xs.slice(WARMUP).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

globalThis.addEventListener("unload", () => {
  Deno.removeSync(askDir, { recursive: true });
  if (timings.parse!.length === 0) return;
  const parseMs = median(timings.parse!);
  const printMs = median(timings.print!);
  console.log(
    `\nchat throughput (median of ${timings.parse!.length - WARMUP} runs): ` +
      `parse ${(MB / (parseMs / 1000)).toFixed(0)} MB/s (${MB.toFixed(1)} MB in ${
        parseMs.toFixed(0)
      } ms), ` +
      `print ${((printedBytes / 1e6) / (printMs / 1000)).toFixed(0)} MB/s (${
        (printedBytes / 1e6).toFixed(1)
      } MB in ${printMs.toFixed(0)} ms); target ≥ 200 MB/s each`,
  );
});
