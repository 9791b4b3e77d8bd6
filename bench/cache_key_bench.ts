/**
 * The inference cache's round key of a request with a 60-message history
 * (the agents bench's Root late in a session), in ASCII and with a few
 * non-ASCII characters per message (two-byte strings): what every cached
 * inference pays before it is sent.
 *
 *   tools/deno bench bench/cache_key_bench.ts          # Deno.bench (part of `deno task bench`)
 *   tools/node_modules/.bin/bun bench/cache_key_bench.ts   # the binary's engine: µs per key
 *
 * @module
 */
import { roundCacheKey } from "../src/llm/cache_key.ts";
import type { CacheKeyInput } from "../src/llm/cache_key.ts";

const tools = [{
  type: "function",
  function: {
    name: "ask",
    description: "Ask an agent of the society. ".repeat(8),
    parameters: {
      type: "object",
      properties: {
        agent: { type: "string", enum: ["SpecA", "SpecB", "SpecC"] },
        question: { type: "string" },
      },
      required: ["agent", "question"],
    },
  },
}];

/** 200 requests of a growing conversation (its last 60 messages each). */
function requests(dash: string): CacheKeyInput[] {
  const msgs = [{ role: "system", content: "You are Root. ".repeat(30) }];
  const out: CacheKeyInput[] = [];
  for (let r = 0; r < 200; r++) {
    msgs.push({ role: "user", content: `Question ${r}: ${`what about ${dash} this? `.repeat(8)}` });
    const args = { agent: "SpecA", question: "x ".repeat(40) };
    msgs.push({
      role: "function_call",
      content: JSON.stringify({ name: "ask", arguments: args, id: `call_${r}` }),
    });
    msgs.push({
      role: "function_call_output",
      content: JSON.stringify({ id: `call_${r}`, content: "answer ".repeat(30) }),
    });
    msgs.push({ role: "assistant", content: "Final answer ".repeat(15) });
    out.push({
      endpoint: "loopback",
      backend: "openai",
      model: "scripted",
      params: { params: { temperature: 0 }, previousResponseId: null, prompt: null },
      tools,
      messages: msgs.slice(-60),
      currentMeta: { inference_id: `id-${r}`, pt: 10, ct: 20 },
    });
  }
  return out;
}

const cases = { ascii: requests("-"), "non-ascii": requests("—") };
const keyAll = (reqs: CacheKeyInput[]) => {
  for (const r of reqs) roundCacheKey(r);
};

const deno = (globalThis as { Deno?: { bench?: (o: unknown) => void } }).Deno;
if (deno?.bench) {
  for (const [name, reqs] of Object.entries(cases)) {
    deno.bench({
      name: `round cache key, 60 messages, ${name} (200 keys)`,
      fn: () => keyAll(reqs),
    });
  }
} else {
  for (const [name, reqs] of Object.entries(cases)) {
    const best: number[] = [];
    for (let run = 0; run < 30; run++) {
      const t0 = performance.now();
      keyAll(reqs);
      best.push((performance.now() - t0) / reqs.length * 1000);
    }
    best.sort((a, b) => a - b);
    console.log(`round cache key, 60 messages, ${name}: ${best[0]!.toFixed(1)} µs (best of 30)`);
  }
}
