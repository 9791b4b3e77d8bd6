/**
 * The protocol side of the loopback provider server: how a scripted step is
 * rendered as a reply of each protocol — OpenAI Chat Completions (JSON or SSE
 * chunks), Responses (JSON or SSE events, with a store of responses for
 * `previous_response_id`), Anthropic Messages (JSON or SSE) and Ollama (JSON
 * or NDJSON) — usage blocks and error bodies.
 */
import type { Protocol, ScriptStep, ScriptToolCall, ScriptUsage } from "./provider_server.ts";

export function chunksOf(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  if (text === "") return [];
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function argsText(a: ScriptToolCall["arguments"]): string {
  return typeof a === "string" ? a : JSON.stringify(a);
}

function argsObject(a: ScriptToolCall["arguments"]): unknown {
  if (typeof a !== "string") return a;
  try {
    return JSON.parse(a);
  } catch {
    return a;
  }
}

export function usageFor(
  p: Protocol,
  u: ScriptUsage | null | undefined,
): Record<string, unknown> | null {
  if (u === null) return null;
  const { pt = 10, ct = 5, cct, cwt, rt } = u ?? {};
  switch (p) {
    case "chat": {
      const o: Record<string, unknown> = {
        prompt_tokens: pt,
        completion_tokens: ct,
        total_tokens: pt + ct,
      };
      if (cct !== undefined) o.prompt_tokens_details = { cached_tokens: cct };
      if (rt !== undefined) o.completion_tokens_details = { reasoning_tokens: rt };
      return o;
    }
    case "responses": {
      const o: Record<string, unknown> = { input_tokens: pt };
      o.input_tokens_details = {
        cached_tokens: cct ?? 0,
        ...(cwt !== undefined ? { cache_write_tokens: cwt } : {}),
      };
      o.output_tokens = ct;
      o.output_tokens_details = { reasoning_tokens: rt ?? 0 };
      o.total_tokens = pt + ct;
      return o;
    }
    case "anthropic":
      return {
        input_tokens: pt,
        output_tokens: ct,
        cache_read_input_tokens: cct ?? 0,
        cache_creation_input_tokens: cwt ?? 0,
      };
    case "ollama":
      return { prompt_eval_count: pt, eval_count: ct };
    case "converse":
      return { inputTokens: pt, outputTokens: ct, totalTokens: pt + ct };
    case "bedrock":
      return usageFor("anthropic", u);
  }
}

export function errorBody(p: Protocol, status: number, message: string): unknown {
  if (p === "anthropic") {
    const type = status === 429
      ? "rate_limit_error"
      : status >= 500
      ? "api_error"
      : "invalid_request_error";
    return { type: "error", error: { type, message } };
  }
  if (p === "ollama") return { error: message };
  if (p === "bedrock" || p === "converse") return { message };
  return {
    error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null },
  };
}

/** One streamed piece: SSE event (name + JSON) or an NDJSON line or raw text. */
export type Piece = { event?: string; data: unknown } | { raw: string };

export function ssePiece(p: Piece): string {
  if ("raw" in p) return p.raw;
  const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
  return (p.event ? `event: ${p.event}\n` : "") + `data: ${data}\n\n`;
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
    const id = step.id ?? this.nextId("resp_");
    const model = String(body.model ?? "test");
    const output: Record<string, unknown>[] = [];
    if (step.reasoning) {
      output.push({
        type: "reasoning",
        id: this.nextId("rs_"),
        summary: [{ type: "summary_text", text: step.reasoning }],
      });
    }
    const text = chunksOf(step.text).join("");
    if (text) {
      output.push({
        type: "message",
        id: this.nextId("msg_"),
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text, annotations: [] }],
      });
    }
    for (const c of step.toolCalls ?? []) {
      output.push({
        type: "function_call",
        id: this.nextId("fc_"),
        call_id: c.id ?? this.nextId("call_"),
        name: c.name,
        arguments: argsText(c.arguments),
        status: "completed",
      });
    }
    output.push(...(step.extraItems ?? []));
    const usage = usageFor("responses", step.usage);
    const json: Record<string, unknown> = {
      id,
      object: "response",
      created_at: 1735689600,
      status: "completed",
      model,
      output,
      previous_response_id: body.previous_response_id ?? null,
      usage,
    };
    this.stored.set(id, json);
    let seq = 0;
    const ev = (type: string, rest: Record<string, unknown>): Piece => ({
      event: type,
      data: { type, sequence_number: seq++, ...rest },
    });
    const shell = { ...json, status: "in_progress", output: [], usage: null };
    const pieces: Piece[] = [
      ev("response.created", { response: shell }),
      ev("response.in_progress", { response: shell }),
    ];
    output.forEach((item, output_index) => {
      if (item.type === "message") {
        const item_id = item.id;
        pieces.push(
          ev("response.output_item.added", {
            output_index,
            item: { ...item, status: "in_progress", content: [] },
          }),
        );
        pieces.push(ev("response.content_part.added", {
          item_id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        }));
        for (const delta of chunksOf(step.text)) {
          pieces.push(
            ev("response.output_text.delta", {
              item_id,
              output_index,
              content_index: 0,
              delta,
              logprobs: [],
            }),
          );
        }
        pieces.push(
          ev("response.output_text.done", {
            item_id,
            output_index,
            content_index: 0,
            text,
            logprobs: [],
          }),
        );
        pieces.push(ev("response.content_part.done", {
          item_id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text, annotations: [] },
        }));
      } else if (item.type === "function_call") {
        pieces.push(
          ev("response.output_item.added", {
            output_index,
            item: { ...item, arguments: "", status: "in_progress" },
          }),
        );
        pieces.push(
          ev("response.function_call_arguments.delta", {
            item_id: item.id,
            output_index,
            delta: item.arguments,
          }),
        );
        pieces.push(
          ev("response.function_call_arguments.done", {
            item_id: item.id,
            output_index,
            arguments: item.arguments,
          }),
        );
      } else {
        pieces.push(ev("response.output_item.added", { output_index, item }));
      }
      pieces.push(ev("response.output_item.done", { output_index, item }));
    });
    pieces.push(ev("response.completed", { response: json }));
    return { json, pieces };
  }

  anthropic(step: ScriptStep, body: Record<string, unknown>): { json: unknown; pieces: Piece[] } {
    const id = step.id ?? this.nextId("msg_");
    const model = String(body.model ?? "test");
    const content: Record<string, unknown>[] = [];
    if (step.reasoning) {
      content.push({ type: "thinking", thinking: step.reasoning, signature: "sig" });
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
        ? { type: "thinking", thinking: "" }
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
        pieces.push({
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: b.thinking },
          },
        });
      } else {
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
