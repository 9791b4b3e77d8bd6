/**
 * OpenAI Agents SDK side of `bench/agents_bench.ts` (run as its own process):
 * `agents_sdk.ts URL DIR`. The same society as `agents_scout.ts`, written
 * with `@openai/agents`: specialists as tools (`agent.asTool`, one
 * independent run per call, like scout-ai's one-shot `ask`), SpecC with Leaf
 * as its own tool (the nested society), a Chat Completions model on an
 * `openai` client whose `baseURL` is the loopback server, tracing disabled.
 * Each round runs Root on the history so far plus the user turn and saves the
 * history (`DIR/root.json`, atomically); each specialist run's history is
 * kept and written after the last round (`DIR/log/<Agent>/<n>.json`).
 * Prints a {@link ChildReport} JSON line.
 *
 * @module
 */
import { mkdir, open, readdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import OpenAI from "openai";
import {
  Agent,
  type AgentInputItem,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
} from "@openai/agents";
import {
  childReport,
  NESTED,
  question,
  ROUNDS,
  SPECIALISTS,
  systemPrompt,
} from "./agents_scenario.ts";

const [url, dir] = process.argv.slice(2); // node APIs only: it runs under Deno and under Bun
if (!url || !dir) throw new Error("usage: agents_sdk.ts URL DIR");
setTracingDisabled(true);
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "loopback-needs-no-key" });
const model = new OpenAIChatCompletionsModel(client, "scripted");

/** Every specialist run: agent name and its history (what a log would hold). */
const runs: { agent: string; items: AgentInputItem[] }[] = [];

// deno-lint-ignore no-explicit-any
function asTool(specialist: Agent<any, any>) {
  return specialist.asTool({
    toolName: `ask_${specialist.name}`,
    toolDescription: `Ask ${specialist.name}. You get back only its text answer.`,
    customOutputExtractor: (r) => {
      runs.push({ agent: specialist.name, items: r.history });
      return String(r.finalOutput ?? "");
    },
  });
}

const make = (name: string, tools: ReturnType<typeof asTool>[] = []) =>
  new Agent({ name, instructions: systemPrompt(name), model, tools });
const leaf = make(NESTED.callee);
const specialists = SPECIALISTS.map((name) =>
  name === NESTED.caller ? make(name, [asTool(leaf)]) : make(name)
);
const root = make("Root", specialists.map(asTool));

/**
 * Saves as scout-ai saves a chat (`writeFileAtomic`): a temp file, flushed,
 * renamed into place — the same durability, so the rows compare harnesses,
 * not flush policies.
 */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${crypto.randomUUID()}`;
  const fh = await open(tmp, "w");
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

const chatFile = join(dir, "root.json");
let history: AgentInputItem[] = [];
const roundsMs: number[] = [];
let cpu0 = process.cpuUsage(); // reset after the cold round 1
for (let n = 1; n <= ROUNDS; n++) {
  if (n === 2) cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await run(root, [...history, { role: "user", content: question(n) }]);
  history = r.history;
  await writeAtomic(chatFile, JSON.stringify(history, null, 1));
  roundsMs.push(performance.now() - t0);
}
const cpu = process.cpuUsage(cpu0);
const t0 = performance.now();
const seen: Record<string, number> = {};
for (const { agent, items } of runs) {
  const n = seen[agent] = (seen[agent] ?? 0) + 1;
  await mkdir(join(dir, "log", agent), { recursive: true });
  await writeAtomic(join(dir, "log", agent, `${n}.json`), JSON.stringify(items, null, 1));
}
const saveMs = performance.now() - t0;

let specialistItems = 0;
let files = 1;
for (const a of await readdir(join(dir, "log"))) {
  for (const f of await readdir(join(dir, "log", a))) {
    specialistItems += JSON.parse(await readFile(join(dir, "log", a, f), "utf8")).length;
    files++;
  }
}
const report = childReport("@openai/agents", roundsMs, cpu, saveMs, {
  chat: JSON.parse(await readFile(chatFile, "utf8")).length,
  specialists: specialistItems,
  files,
});
console.log(JSON.stringify(report));
