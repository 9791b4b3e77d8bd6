/**
 * The request shared by the backend format tests: one tool and a chat with
 * one call and its output (the machine-checked Responses example's).
 *
 * @module
 */
import type { Message } from "../../src/chat/types.ts";
import type { BackendRequest } from "../../src/llm/types.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";

/** A tool with a pinned default (stripped before sending). */
export const WEATHER: ToolDefinition = {
  type: "function",
  function: {
    name: "get_current_temperature",
    description: "…",
    parameters: {
      type: "object",
      properties: { location: { type: "string" }, unit: { type: "string" } },
      defaults: { unit: "Celsius" },
    },
  },
};

/** System, user, one call and its output. */
export const CHAT: Message[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "weather?" },
  {
    role: "function_call",
    content: JSON.stringify({
      name: "get_current_temperature",
      arguments: { location: "London", unit: "Celsius" },
      id: "call_mock_1",
    }),
  },
  {
    role: "function_call_output",
    content: JSON.stringify({
      name: "get_current_temperature",
      content: "It's 15 degrees and raining.",
      id: "call_mock_1",
      start_timestamp: "2025-01-01T00:00:00.000Z",
      timestamp: "2025-01-01T00:00:01.000Z",
    }),
  },
];

/** A request of `messages`, no tools or params, not streamed. */
export function req(messages: Message[], extra: Partial<BackendRequest> = {}): BackendRequest {
  return { messages, tools: [], params: {}, stream: false, ...extra };
}
