/**
 * Finding the tool calls whose output carries an `agent_meta` receipt without
 * parsing every call and output of a chat.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { callIdOf, contentObject, pairToolCalls, type ToolCall } from "./tool_calls.ts";

/**
 * Could this output carry `agent_meta`? A JSON key can only be `agent_meta`
 * if the text says so or uses `\u` escapes. (Literal searches beat one
 * `/agent_meta|\\u/` test: the engines search a literal much faster than
 * an alternation, and this runs over every tool output of a store.)
 */
function mayCarryReceipt(m: Message): boolean {
  const c = m.content;
  if (typeof c === "string") return mentionsAgentMeta(c) || c.indexOf("\\u") !== -1;
  return c !== null && typeof c === "object";
}

/**
 * `text.includes("agent_meta")`, searching for `_meta` first: the engines
 * skip to a rare first character much faster than to a common one (twice as
 * fast over a store's outputs, in Bun).
 */
function mentionsAgentMeta(text: string): boolean {
  for (let k = text.indexOf("_meta"); k !== -1; k = text.indexOf("_meta", k + 5)) {
    if (k >= 5 && text.startsWith("agent", k - 5)) return true;
  }
  return false;
}

const PLAIN_ID = /^[A-Za-z0-9_.:-]+$/;

/**
 * The paired calls whose output has the key `agent_meta` — what
 * `toolCalls(messages).filter(...)` gives, without parsing every call and
 * output of the chat: only the calls and outputs that can share an id with a
 * receipt-carrying output take part in the pairing (pairing never crosses
 * ids), and a message whose text does not contain such an id cannot have it.
 * The receipt-carrying outputs are parsed once.
 */
export function receiptCalls(messages: readonly Message[], source: string | null): ToolCall[] {
  const ids = new Set<string>();
  const parsed = new Map<number, Record<string, unknown>>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "function_call_output" || !mayCarryReceipt(m)) continue;
    const obj = contentObject(m.content);
    if (obj === null || !Object.hasOwn(obj, "agent_meta")) continue;
    parsed.set(i, obj);
    const id = callIdOf(obj);
    if (id !== null) ids.add(id);
  }
  if (ids.size === 0) return [];
  const needles = [...ids];
  const exact = needles.every((id) => PLAIN_ID.test(id));
  const contentOf = (m: Message, i: number) => {
    const known = parsed.get(i);
    if (known !== undefined) return known;
    const c = m.content;
    if (
      typeof c === "string" && exact && c.indexOf("\\u") === -1 &&
      !needles.some((id) => c.includes(id))
    ) {
      return null;
    }
    return contentObject(c);
  };
  return pairToolCalls(messages, source, contentOf).filter((call) =>
    call.outputInfo !== null && Object.hasOwn(call.outputInfo, "agent_meta")
  );
}
