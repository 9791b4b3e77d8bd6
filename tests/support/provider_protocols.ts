/**
 * The protocol side of the loopback provider server: how a scripted step is
 * rendered as a reply of each protocol — OpenAI Chat Completions (JSON or SSE
 * chunks), Responses (JSON or SSE events, with a store of responses for
 * `previous_response_id`; rendered by `responses_protocol.ts`), Anthropic
 * Messages (JSON or SSE) and Ollama (JSON or NDJSON).
 */
import { argsObject, argsText, chunksOf, type Piece, usageFor } from "./protocol_parts.ts";
import type { ScriptStep } from "./provider_server.ts";
import { responsesEvents, responsesJson } from "./responses_protocol.ts";
import { thinkingSignature } from "./thinking_rule.ts";

/** A thinking block's stream deltas: its text in two parts, then its signature. */
function thinkingDeltas(b: Record<string, unknown>): Record<string, unknown>[] {
  const text = String(b.thinking);
  const half = Math.floor(text.length / 2);
  return [
    { type: "thinking_delta", thinking: text.slice(0, half) },
    { type: "thinking_delta", thinking: text.slice(half) },
    { type: "signature_delta", signature: b.signature },
  ];
}

/** Builds replies per protocol; keeps the Responses store and id counters. */
export class Replies {
  n = 0;
  stored = new Map<string, unknown>();

  nextId(prefix: string): string {
    return `${prefix}${String(++this.n).padStart(3, "0")}`;
  }

  chat(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const id = step.id ?? this.nextId("chatcmpl-");
    const model = String(body.model ?? "test");
    const calls = (step.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? this.nextId("call_") }));
    const text = chunksOf(step.text).join("");
    const message: Record<string, unknown> = { role: "assistant", content: text || null };
    if (step.reasoning) message.reasoning_content = step.reasoning;
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: argsText(c.arguments) },
      }));
    }
    const finish = calls.length ? "tool_calls" : "stop";
    const usage = usageFor("chat", step.usage);
    const json: Record<string, unknown> = {
      id,
      object: "chat.completion",
      created: 1735689600,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    };
    if (usage) json.usage = usage;
    const base = { id, object: "chat.completion.chunk", created: 1735689600, model };
    const chunk = (delta: unknown, finish_reason: string | null = null) => ({
      data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] },
    });
    const pieces: Piece[] = [chunk({ role: "assistant", content: "" })];
    if (step.reasoning) pieces.push(chunk({ reasoning_content: step.reasoning }));
    for (const c of chunksOf(step.text)) pieces.push(chunk({ content: c }));
    calls.forEach((c, index) => {
      const args = argsText(c.arguments);
      const half = Math.floor(args.length / 2);
      pieces.push(chunk({
        tool_calls: [{
          index,
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: "" },
        }],
      }));
      pieces.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      pieces.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    pieces.push(chunk({}, finish));
    const so = body.stream_options as Record<string, unknown> | undefined;
    if (so?.include_usage && usage) pieces.push({ data: { ...base, choices: [], usage } });
    pieces.push({ data: "[DONE]" });
    return { json, pieces };
  }

  responses(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const json = responsesJson(step, body, (prefix) => this.nextId(prefix));
    this.stored.set(json.id, json);
    return { json, pieces: responsesEvents(json, step) };
  }

  anthropic(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const id = step.id ?? this.nextId("msg_");
    const model = String(body.model ?? "test");
    const content: Record<string, unknown>[] = [];
    if (step.reasoning) {
      const signature = thinkingSignature(step.reasoning);
      content.push({ type: "thinking", thinking: step.reasoning, signature });
    }
    if (step.redactedThinking) {
      content.push({ type: "redacted_thinking", data: step.redactedThinking });
    }
    const text = chunksOf(step.text).join("");
    if (text) content.push({ type: "text", text });
    for (const c of step.toolCalls ?? []) {
      content.push({
        type: "tool_use",
        id: c.id ?? this.nextId("toolu_"),
        name: c.name,
        input: argsObject(c.arguments),
      });
    }
    const usage = usageFor("anthropic", step.usage) ?? { input_tokens: 0, output_tokens: 0 };
    const stop = step.toolCalls?.length ? "tool_use" : "end_turn";
    const json = {
      id,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    };
    const pieces: Piece[] = [{
      event: "message_start",
      data: {
        type: "message_start",
        message: { ...json, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
      },
    }];
    content.forEach((b, index) => {
      const start = b.type === "text"
        ? { type: "text", text: "" }
        : b.type === "thinking"
        ? { type: "thinking", thinking: "", signature: "" }
        : b.type === "redacted_thinking"
        ? b
        : { ...b, input: {} };
      pieces.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: start },
      });
      if (index === 0) pieces.push({ event: "ping", data: { type: "ping" } });
      if (b.type === "text") {
        for (const t of chunksOf(step.text)) {
          pieces.push({
            event: "content_block_delta",
            data: { type: "content_block_delta", index, delta: { type: "text_delta", text: t } },
          });
        }
      } else if (b.type === "thinking") {
        for (const delta of thinkingDeltas(b)) {
          pieces.push({
            event: "content_block_delta",
            data: { type: "content_block_delta", index, delta },
          });
        }
      } else if (b.type === "tool_use") {
        const js = JSON.stringify(b.input);
        const half = Math.floor(js.length / 2);
        for (const part of [js.slice(0, half), js.slice(half)]) {
          pieces.push({
            event: "content_block_delta",
            data: {
              type: "content_block_delta",
              index,
              delta: { type: "input_json_delta", partial_json: part },
            },
          });
        }
      }
      pieces.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
    });
    pieces.push({
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    });
    pieces.push({ event: "message_stop", data: { type: "message_stop" } });
    return { json, pieces };
  }

  ollama(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const model = String(body.model ?? "test");
    const created_at = "2025-01-01T00:00:00.000Z";
    const text = chunksOf(step.text).join("");
    const calls = (step.toolCalls ?? []).map((c) => ({
      function: { name: c.name, arguments: argsObject(c.arguments) },
    }));
    const message: Record<string, unknown> = { role: "assistant", content: text };
    if (step.reasoning) message.thinking = step.reasoning;
    if (calls.length) message.tool_calls = calls;
    const usage = usageFor("ollama", step.usage) ?? {};
    const done = {
      done: true,
      done_reason: "stop",
      total_duration: 1000,
      load_duration: 10,
      ...usage,
    };
    const json = { model, created_at, message, ...done };
    const pieces: Piece[] = [];
    for (const t of chunksOf(step.text)) {
      pieces.push({
        raw: JSON.stringify({
          model,
          created_at,
          message: { role: "assistant", content: t },
          done: false,
        }) + "\n",
      });
    }
    if (calls.length) {
      pieces.push({
        raw: JSON.stringify({
          model,
          created_at,
          message: { role: "assistant", content: "", tool_calls: calls },
          done: false,
        }) + "\n",
      });
    }
    pieces.push({
      raw: JSON.stringify({
        model,
        created_at,
        message: { role: "assistant", content: "" },
        ...done,
      }) + "\n",
    });
    return { json, pieces };
  }
}
