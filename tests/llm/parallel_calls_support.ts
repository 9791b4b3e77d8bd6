/**
 * What the parallel tool call tests share (R113-1): the three ways to an
 * Anthropic model, a request's turns in short form, two tools, one reply's
 * two calls.
 *
 * @module
 */
import type { Message } from "../../src/chat/types.ts";
import { toolRegistry } from "../../src/tools/registry.ts";

type Block = Record<string, unknown>;
type Turn = { role: string; content: Block[] };

/** Extended thinking, the smallest budget. */
export const THINKING = { type: "enabled", budget_tokens: 1024 };
/** The reasoning of the replies that call. */
export const PLAN = "Weather and time: both at once.";
/** The question. */
export const q: Message[] = [
  { role: "system", content: "You help." },
  { role: "user", content: "Temperature and time in Paris?" },
];
/** The first call of a reply. */
export const CALL_A = { name: "get_temp", arguments: { city: "Paris" }, id: "toolu_A" };
/** The second call of a reply. */
export const CALL_B = { name: "get_time", arguments: { city: "Paris" }, id: "toolu_B" };

/** Anthropic's API, Bedrock InvokeModel (Anthropic bodies), Bedrock Converse. */
export { ANTHROPIC_ROUTES as ROUTES } from "./ask_support.ts";

/** One block as `type` or `type:id` (Converse blocks by Anthropic's names). */
function blockName(b: Block): string {
  if (b.reasoningContent) return "thinking";
  if (b.toolUse) return `tool_use:${(b.toolUse as Block).toolUseId}`;
  if (b.toolResult) return `tool_result:${(b.toolResult as Block).toolUseId}`;
  if (b.type === "tool_use") return `tool_use:${b.id}`;
  if (b.type === "tool_result") return `tool_result:${b.tool_use_id}`;
  return typeof b.type === "string" ? b.type : "text";
}

/**
 * A request's turns as `role: block, block…`, tool blocks with their id.
 *
 * @param body the recorded request body
 * @returns one line per turn
 */
export function turnShape(body: Record<string, unknown>): string[] {
  return (body.messages as Turn[]).map((t) => `${t.role}: ${t.content.map(blockName).join(", ")}`);
}

/** `get_temp` and `get_time`, each answering with its city. */
export const weatherTools = () =>
  toolRegistry({
    get_temp: [(_n, a) => `15 degrees in ${a.city}`, {
      name: "get_temp",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    }],
    get_time: [(_n, a) => `noon in ${a.city}`, {
      name: "get_time",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    }],
  });
