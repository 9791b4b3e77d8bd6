/**
 * Steps of a delegated call timed alone, as the agents bench's "Fifteenth
 * pass" (docs/design-notes.md) cites them: a meta record built, written and
 * read back (`nextMeta`, `serializeMeta`, `parseMeta`), and a specialist
 * template found, loaded and cloned (`findAgent`, `loadAgent`,
 * `cloneAgent`). Each step runs 300 times; the medians of the first 140
 * calls (as many as an agents bench run makes: cold code) and of the rest
 * are printed in µs. Node APIs only: it runs under Deno and under Bun.
 *
 *   tools/node_modules/.bin/bun bench/agent_steps.ts
 *   tools/deno run -A bench/agent_steps.ts
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { findAgent } from "../src/agent/find.ts";
import { loadAgent } from "../src/agent/load.ts";
import { cloneAgent } from "../src/agent/socialize.ts";
import { parseMeta, serializeMeta } from "../src/chat/meta.ts";
import { newSession, nextMeta } from "../src/llm/meta_record.ts";
import { median } from "./stats.ts";

const RUNS = 300;
const COLD = 140;
const times: Record<string, number[]> = {};
const timed = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const out = await f();
  (times[name] ??= []).push((performance.now() - t0) * 1000);
  return out;
};

const dir = mkdtempSync(join(tmpdir(), "scout-agent-steps-"));
try {
  const home = join(dir, "home");
  mkdirSync(join(home, "Agent", "Leaf"), { recursive: true });
  writeFileSync(join(home, "Agent", "Leaf", "start_chat"), "system:\n\nYou are Leaf\n");
  const env = { ...process.env, SCOUT_HOME: home };
  const session = newSession();
  const usage = {
    prompt_tokens: 120,
    completion_tokens: 30,
    total_tokens: 150,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
  let previous = parseMeta("pt=10 ct=5 tt=15 pt_c=10 ct_c=5 tt_c=15");
  for (let i = 0; i < RUNS; i++) {
    const meta = await timed("nextMeta", () =>
      nextMeta({
        usage,
        previous,
        session,
        inferenceId: randomUUID(),
        timestamp: new Date(),
        who: { model: "scripted", backend: "openai", endpoint: "loopback" },
        providerResponseId: "chatcmpl-1234",
      }));
    const line = await timed("serializeMeta", () => serializeMeta(meta));
    previous = await timed("parseMeta", () => parseMeta(line));
    await timed("findAgent", () => findAgent("Leaf", { cwd: dir, env }));
    const leaf = await timed("loadAgent", () => loadAgent("Leaf", { runtime: { env, cwd: dir } }));
    await timed("cloneAgent", () => cloneAgent(leaf));
  }
  const runtime = typeof process.versions.bun === "string"
    ? `Bun ${process.versions.bun}`
    : `Deno ${process.versions.deno ?? "?"}`;
  console.log(`${runtime}, ${RUNS} calls each, median µs (first ${COLD} / rest):`);
  for (const [name, list] of Object.entries(times)) {
    const cold = median(list.slice(0, COLD)).toFixed(1);
    const warm = median(list.slice(COLD)).toFixed(1);
    console.log(`  ${name.padEnd(14)} ${cold.padStart(7)} / ${warm.padStart(7)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
