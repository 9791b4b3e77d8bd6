/**
 * Parts shared by the loopback provider server's protocols: a step's text as
 * chunks, tool-call arguments as text or object, usage blocks and error
 * bodies per protocol, and streamed pieces (SSE events, NDJSON lines).
 */
import type { Protocol, ScriptToolCall, ScriptUsage } from "./provider_server.ts";

export function chunksOf(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  if (text === "") return [];
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

export function argsText(a: ScriptToolCall["arguments"]): string {
  return typeof a === "string" ? a : JSON.stringify(a);
}

export function argsObject(a: ScriptToolCall["arguments"]): unknown {
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

/** An error reported inside a stream ({@link streamErrorPiece}). */
export interface StreamError {
  /** The error's type or code (`overloaded_error`, `server_error`, `throttlingException`…). */
  type: string;
  message: string;
  /** Responses only: an `error` event instead of `response.failed`. */
  event?: "error";
}

/**
 * The error piece of a stream in `p`'s shape: Anthropic's `error` event,
 * Responses' `response.failed` (or `error`) event, a Chat chunk with an
 * `error`, an Ollama `{"error"}` line.
 */
export function streamErrorPiece(p: Protocol, e: StreamError): Piece {
  switch (p) {
    case "anthropic":
      return {
        event: "error",
        data: { type: "error", error: { type: e.type, message: e.message } },
      };
    case "responses": {
      if (e.event === "error") {
        return { event: "error", data: { type: "error", code: e.type, message: e.message } };
      }
      const response = {
        id: "resp_failed",
        object: "response",
        status: "failed",
        output: [],
        error: { code: e.type, message: e.message },
      };
      return { event: "response.failed", data: { type: "response.failed", response } };
    }
    case "ollama":
      return { raw: JSON.stringify({ error: e.message }) + "\n" };
    default:
      return { data: { error: { message: e.message, type: e.type, code: null } } };
  }
}

/** One streamed piece: SSE event (name + JSON) or an NDJSON line or raw text. */
export type Piece = { event?: string; data: unknown } | { raw: string };

export function ssePiece(p: Piece): string {
  if ("raw" in p) return p.raw;
  const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
  return (p.event ? `event: ${p.event}\n` : "") + `data: ${data}\n\n`;
}
