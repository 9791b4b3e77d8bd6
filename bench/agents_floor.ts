/**
 * The transport floor of `bench/agents_bench.ts` (run as its own process):
 * `agents_floor.ts URL DIR`. No harness: the scenario's requests, each one a
 * bare `fetch` of a Chat Completions body (`JSON.stringify`, `res.json()`),
 * sent in the scenario's order and concurrency — Root; SpecA, SpecB and SpecC
 * at once; Leaf after SpecC; SpecC' after Leaf; Root' after all three — with
 * Root's history kept across rounds as a harness keeps it. Nothing is saved.
 *
 * What its "overhead" measures is what any client pays on this machine for
 * the same requests beyond the server's handler time: the loopback HTTP
 * stacks of both ends and each process's wake-up when a request or a reply
 * reaches it. On a virtual machine whose idle CPUs halt, a wake-up costs
 * hundreds of microseconds (design-notes, "Seventh pass"), and a delegation
 * window holds four requests one after another.
 *
 * With `--client openai` each request goes through the `openai` client
 * instead, as scout-ai sends it (one client, no retries, a request signal
 * with its timer, the reply read as text and parsed): the floor of any
 * harness built on that client, which both harnesses of the bench are.
 *
 * @module
 */
import process from "node:process";
import { childReport, NESTED, question, ROUNDS, systemPrompt } from "./agents_scenario.ts";

const [url] = process.argv.slice(2); // node APIs only: it runs under Deno and under Bun
if (!url) throw new Error("usage: agents_floor.ts URL DIR [--client openai]");

type Msg = Record<string, unknown>;
type ToolCall = { id: string; function: { name: string; arguments: string } };

/** The server replies in scout-ai's tool shape when a request offers a tool named `ask`. */
const ASK_TOOL = {
  type: "function",
  function: {
    name: "ask",
    parameters: {
      type: "object",
      properties: { agent: { type: "string" }, prompt: { type: "string" } },
      required: ["agent", "prompt"],
    },
  },
};

type Send = (body: Record<string, unknown>) => Promise<{ choices: { message: Msg }[] }>;

async function bareFetch(body: Record<string, unknown>) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer loopback" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`floor: HTTP ${res.status}: ${await res.text()}`);
  return await res.json();
}

/** Requests through the `openai` client, as `queryChat` sends a request that is not streamed. */
async function openaiClient(): Promise<Send> {
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI({
    apiKey: "loopback",
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeout: 1_200_000,
    logLevel: "off",
  });
  return async (body) => {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 1_200_000);
    try {
      // deno-lint-ignore no-explicit-any
      const res = await client.chat.completions.create(body as any, { signal: ac.signal })
        .asResponse();
      return JSON.parse(await res.text());
    } finally {
      clearTimeout(timer);
    }
  };
}

const viaOpenai = process.argv.includes("--client") &&
  process.argv[process.argv.indexOf("--client") + 1] === "openai";
const send: Send = viaOpenai ? await openaiClient() : bareFetch;

async function complete(messages: Msg[], tools: boolean): Promise<Msg> {
  const body = { model: "scripted", messages, ...(tools ? { tools: [ASK_TOOL] } : {}) };
  return (await send(body)).choices[0]!.message;
}

/** One agent's turn: ask, run its `ask` calls (all at once), ask again with their outputs. */
async function turn(messages: Msg[], tools: boolean): Promise<string> {
  const first = await complete(messages, tools);
  const calls = (first.tool_calls ?? []) as ToolCall[];
  messages.push({ role: "assistant", content: first.content ?? null, tool_calls: calls });
  if (calls.length === 0) return String(first.content ?? "");
  const outputs = await Promise.all(calls.map((c) => {
    const { agent, prompt } = JSON.parse(c.function.arguments) as Record<string, string>;
    const social = agent === NESTED.caller;
    return turn([
      { role: "system", content: systemPrompt(agent!) },
      { role: "user", content: prompt },
    ], social);
  }));
  calls.forEach((c, i) => messages.push({ role: "tool", tool_call_id: c.id, content: outputs[i] }));
  const last = await complete(messages, tools);
  messages.push({ role: "assistant", content: last.content });
  return String(last.content ?? "");
}

const history: Msg[] = [{ role: "system", content: systemPrompt("Root") }];
const roundsMs: number[] = [];
let cpu0 = process.cpuUsage(); // reset after the cold round 1
for (let n = 1; n <= ROUNDS; n++) {
  if (n === 2) cpu0 = process.cpuUsage();
  const t0 = performance.now();
  history.push({ role: "user", content: question(n) });
  await turn(history, true);
  roundsMs.push(performance.now() - t0);
}
const cpu = process.cpuUsage(cpu0);
const report = childReport(viaOpenai ? "openai client" : "bare fetch", roundsMs, cpu, 0, {
  chat: 0,
  specialists: 0,
  files: 0,
});
console.log(JSON.stringify(report));
