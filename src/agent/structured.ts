/**
 * Structured answers of an agent (`agents.md` §1.3): `json`, `jsonFormat`,
 * `iterate`, `iterateDictionary`. They run `chat` on the live chat with a
 * `format` message and parse the answer (a ```` ```json ```` fence is
 * stripped; an object whose only key is `content` yields that value).
 * `iterate` uses structured output on the agent's current endpoint ([TS-FIX]
 * §7.6: Ruby forces an endpoint named `responses`).
 *
 * @module
 */
import { parseJson, unwrapContent } from "../chat/json.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { setOwn } from "../util/own_record.ts";
import { chat, current } from "./agent.ts";
import { checkAgentArg } from "./agent_shape.ts";
import type { Agent, AgentCallOptions, IterateDictionaryOptions } from "./types.ts";
import { clipEnd } from "../util/clip.ts";

/** The schema `iterate` asks for: `{content: string[]}`. */
export const LIST_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: { content: { type: "array", items: { type: "string" } } },
  required: ["content"],
  additionalProperties: false,
};

/** The schema `iterateDictionary` asks for: a string → string map. */
export const DICTIONARY_SCHEMA: Record<string, unknown> = {
  name: "dictionary",
  type: "object",
  properties: {},
  additionalProperties: { type: "string" },
};

function parseAnswer(text: string): unknown {
  let v: unknown;
  try {
    v = parseJson(text);
  } catch (e) {
    throw new ScoutError(
      "json_parse",
      `The answer is not JSON: ${(e as Error).message} (answer "${clipEnd(text, 80, "")}")`,
    );
  }
  return unwrapContent(v);
}

function removeFormats(chat: Message[]): Message[] {
  const removed: Message[] = [];
  for (let i = chat.length - 1; i >= 0; i--) {
    if (chat[i]!.role === "format") removed.unshift(...chat.splice(i, 1));
  }
  return removed;
}

/**
 * Asks for a JSON answer: appends `format: json`, runs `chat`, takes the
 * format message out again, parses the answer.
 *
 * @param agent the agent
 * @param options per-call options
 * @returns the parsed answer
 * @throws ScoutError `json_parse` when the answer is not JSON
 */
export async function json(agent: Agent, options: AgentCallOptions = {}): Promise<unknown> {
  checkAgentArg(agent, "json");
  const live = current(agent);
  const fmt: Message = { role: "format", content: "json" };
  live.push(fmt);
  try {
    const r = await chat(agent, options);
    return parseAnswer(r.text);
  } finally {
    const i = live.indexOf(fmt);
    if (i >= 0) live.splice(i, 1);
  }
}

/**
 * Asks for an answer following a JSON schema: existing `format` messages are
 * taken out, `format` = schema appended, `chat` run, the format removed and
 * the earlier ones re-appended at the end.
 *
 * @param agent the agent
 * @param schema the JSON schema (or the shorthand map of `format:`)
 * @param options per-call options
 * @returns the parsed answer
 * @throws ScoutError `json_parse` when the answer is not JSON
 */
export async function jsonFormat(
  agent: Agent,
  schema: Record<string, unknown>,
  options: AgentCallOptions = {},
): Promise<unknown> {
  checkAgentArg(agent, "jsonFormat");
  const live = current(agent);
  const earlier = removeFormats(live);
  live.push({ role: "format", content: schema });
  try {
    const r = await chat(agent, options);
    return parseAnswer(r.text);
  } finally {
    removeFormats(live);
    live.push(...earlier);
  }
}

/**
 * Asks for a list of strings (structured output on the current endpoint,
 * [TS-FIX] §7.6) and calls `fn` per item, in order.
 *
 * @param agent the agent
 * @param prompt appended as a user message when given
 * @param fn called with each item and its index
 * @param options per-call options
 * @returns the items
 */
export async function iterate(
  agent: Agent,
  prompt: string | null | undefined,
  fn: (item: string, index: number) => unknown,
  options: AgentCallOptions = {},
): Promise<string[]> {
  checkAgentArg(agent, "iterate");
  if (prompt) current(agent).push({ role: "user", content: prompt });
  const value = await jsonFormat(agent, LIST_SCHEMA, options);
  if (!Array.isArray(value)) {
    throw new ScoutError("json_parse", `Expected a list of strings, got ${JSON.stringify(value)}`);
  }
  const items = value.map((v) => typeof v === "string" ? v : JSON.stringify(v));
  for (let i = 0; i < items.length; i++) await fn(items[i]!, i);
  return items;
}

/**
 * Asks for a string → string map and calls `fn` per entry (in order, or all
 * at once with `parallel`).
 *
 * @param agent the agent
 * @param prompt appended as a user message when given
 * @param fn called with each key and value
 * @param options per-call options and `parallel`
 * @returns the map
 */
export async function iterateDictionary(
  agent: Agent,
  prompt: string | null | undefined,
  fn: (key: string, value: string) => unknown,
  options: IterateDictionaryOptions = {},
): Promise<Record<string, string>> {
  checkAgentArg(agent, "iterateDictionary");
  const { parallel, ...call } = options;
  if (prompt) current(agent).push({ role: "user", content: prompt });
  const value = await jsonFormat(agent, DICTIONARY_SCHEMA, call);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ScoutError("json_parse", `Expected a JSON object, got ${JSON.stringify(value)}`);
  }
  const map: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    // defined, not assigned: under Bun a key `__proto__` the model answered was dropped
    setOwn(map, k, typeof v === "string" ? v : JSON.stringify(v));
  }
  if (parallel) await Promise.all(Object.entries(map).map(([k, v]) => fn(k, v)));
  else for (const [k, v] of Object.entries(map)) await fn(k, v);
  return map;
}
