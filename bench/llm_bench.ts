/**
 * Inference overheads against the loopback provider server (127.0.0.1 only):
 *
 * 1. Tool-loop overhead per round with zero think time: one `ask` whose model
 *    calls a trivial tool for 20 rounds before answering, through each
 *    backend's real client (the `openai` SDK, our fetch adapters); reported
 *    per round, next to a bare `fetch` round trip to the same server.
 *    Target ≤ 5 ms per round.
 * 2. Time to first streamed byte of `dist/scout-ai llm ask --stream` (spawn →
 *    first stdout byte) vs the server's own first byte (request received →
 *    first byte written, a scripted 100 ms "model latency"). Target: ≤ 30 ms
 *    more than the server's.
 *
 * Run: `tools/deno bench -P=test bench/llm_bench.ts` (also part of
 * `tools/deno task bench`); the summary is printed after the table.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ask } from "../src/llm/ask.ts";
import { newSession } from "../src/llm/meta_record.ts";
import { toolRegistry } from "../src/tools/registry.ts";
import {
  type RecordedRequest,
  type ScriptStep,
  startProviderServer,
} from "../tests/support/provider_server.ts";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const BINARY = join(ROOT, "dist", "scout-ai");
const ROUNDS = 20;
const FIRST_BYTE_MS = 100;
const SPAWNS = 12;
const WARMUP = 2;

const home = await Deno.makeTempDir({ prefix: "scout-llm-bench-" });
let toolCallsLeft = 0;
let firstByteDelay = 0;
const server = await startProviderServer({
  fallback: (req: RecordedRequest): ScriptStep => {
    if (req.path === "/bare") return { text: "ok" };
    if (toolCallsLeft > 0) {
      toolCallsLeft--;
      return {
        toolCalls: [{ name: "noop", arguments: { i: toolCallsLeft } }],
        usage: { pt: 100, ct: 5 },
      };
    }
    return {
      text: ["The ", "answer ", "is ", "42."],
      delayMs: firstByteDelay,
      usage: { pt: 100, ct: 5 },
    };
  },
});

const tools = toolRegistry({
  noop: [(_n, a) => `ok ${a.i}`, {
    name: "noop",
    parameters: { type: "object", properties: { i: { type: "integer" } } },
  }],
});

const perRound: Record<string, number[]> = {};

async function loop(backend: string): Promise<void> {
  toolCallsLeft = ROUNDS;
  firstByteDelay = 0;
  const t = performance.now();
  const r = await ask([{ role: "user", content: "Call noop until told otherwise." }], {
    backend,
    url: server.url,
    model: "bench",
    key: "sk-bench",
    persist: false,
    tools,
    env: { SCOUT_HOME: home },
    config: { entries: [] },
    session: newSession(),
  });
  const dt = performance.now() - t;
  if (r.text !== "The answer is 42.") throw new Error(`unexpected answer: ${r.text}`);
  (perRound[backend] ??= []).push(dt / (ROUNDS + 1));
}

for (const backend of ["openai", "responses", "anthropic", "ollama"]) {
  Deno.bench({
    name: `ask: ${ROUNDS} tool rounds + answer (${backend})`,
    group: "tool loop",
    warmup: 3,
    n: 20,
    fn: async () => {
      await loop(backend);
    },
  });
}

const bare: number[] = [];
Deno.bench({
  name: "bare fetch round trip (baseline)",
  group: "tool loop",
  baseline: true,
  warmup: 3,
  n: 200,
  fn: async () => {
    const t = performance.now();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "bench", messages: [{ role: "user", content: "x" }] }),
    });
    await res.json();
    bare.push(performance.now() - t);
  },
});

// ---- time to first streamed byte of the binary ------------------------------------------------

const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
const [buildCmd, ...buildArgs] = String(config.tasks.build).split(/\s+/);
const built = await new Deno.Command(join(ROOT, buildCmd!), {
  args: buildArgs,
  cwd: ROOT,
  stdout: "null",
  stderr: "piped",
}).output();
if (!built.success) throw new Error(new TextDecoder().decode(built.stderr));

const ttfb: Record<string, { client: number[]; server: number[]; delivery: number[] }> = {};

async function firstByte(backend: string): Promise<void> {
  toolCallsLeft = 0;
  firstByteDelay = FIRST_BYTE_MS;
  const before = server.requests.length;
  const t0 = performance.now();
  const child = new Deno.Command(BINARY, {
    args: [
      "llm",
      "ask",
      "-b",
      backend,
      "-O",
      `url=${server.url}`,
      "-m",
      "bench",
      "--stream",
      "--no-cache",
      "hi",
    ],
    cwd: home,
    env: {
      SCOUT_HOME: home,
      OPENAI_API_KEY: "sk-bench",
      ANTHROPIC_API_KEY: "sk-bench",
      NO_COLOR: "1",
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  const tClient = performance.now();
  let out = new TextDecoder().decode(first.value ?? new Uint8Array());
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  const status = await child.status;
  const err = await new Response(child.stderr).text();
  if (!status.success || out !== "The answer is 42.\n") {
    throw new Error(`binary failed: ${out} ${err}`);
  }
  const req = server.requests[before]!;
  const s = (ttfb[backend] ??= { client: [], server: [], delivery: [] });
  s.client.push(tClient - t0);
  s.server.push(req.firstByteAt! - req.receivedAt);
  s.delivery.push(tClient - req.firstByteAt!);
}

for (const backend of ["openai", "anthropic", "ollama"]) {
  Deno.bench({
    name: `dist/scout-ai llm ask --stream: first byte (${backend})`,
    group: "time to first byte",
    warmup: WARMUP,
    n: SPAWNS,
    fn: async () => {
      await firstByte(backend);
    },
  });
}

function median(xs: number[], skip = 0): number {
  const s = xs.slice(skip).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

globalThis.addEventListener("unload", () => {
  const lines: string[] = [];
  if (bare.length) {
    lines.push(
      `bare fetch round trip to the loopback server: median ${median(bare, 3).toFixed(2)} ms`,
    );
  }
  for (const [b, xs] of Object.entries(perRound)) {
    lines.push(
      `tool loop per round (${b}): median ${median(xs, 3).toFixed(2)} ms ` +
        `(${
          (median(xs, 3) - median(bare, 3)).toFixed(2)
        } ms beyond a bare round trip; target ≤ 5 ms)`,
    );
  }
  for (const [b, s] of Object.entries(ttfb)) {
    const c = median(s.client, WARMUP);
    const sv = median(s.server, WARMUP);
    lines.push(
      `first streamed byte (${b}): binary ${c.toFixed(1)} ms from spawn, server ${
        sv.toFixed(1)
      } ms from request → ` +
        `${(c - sv).toFixed(1)} ms more (target ≤ 30 ms); server byte → stdout ${
          median(s.delivery, WARMUP).toFixed(2)
        } ms`,
    );
  }
  if (lines.length) console.log("\n" + lines.join("\n"));
  void server.close();
  try {
    Deno.removeSync(home, { recursive: true });
  } catch { /* already gone */ }
});
