/**
 * The loopback provider's script and record types (`provider_server.ts`):
 * the steps a test scripts, the requests the server records, the server's
 * handle and options.
 *
 * @module
 */
import type { Piece, StreamError } from "./protocol_parts.ts";

/** A tool call the scripted model makes. */
export interface ScriptToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** Token usage in short keys; rendered in each protocol's shape. */
export interface ScriptUsage {
  pt?: number;
  ct?: number;
  cct?: number;
  cwt?: number;
  rt?: number;
}

/** One scripted reply (one HTTP request). */
export interface ScriptStep {
  /** Answer text; an array gives the stream chunks explicitly. */
  text?: string | string[];
  /** Tool calls (after the text). */
  toolCalls?: ScriptToolCall[];
  /** Usage (default `{pt: 10, ct: 5}`); `null` sends none. */
  usage?: ScriptUsage | null;
  /** Response id (generated otherwise). */
  id?: string;
  /**
   * Reasoning text (Chat `reasoning_content`, Anthropic `thinking` and Converse
   * `reasoningText`, both signed: `thinking_rule.ts`, Responses summary).
   */
  reasoning?: string;
  /** Anthropic and Converse: a redacted reasoning block (its `data`), after the reasoning. */
  redactedThinking?: string;
  /** Extra raw output items appended to a Responses reply (e.g. `mcp_call`). */
  extraItems?: Record<string, unknown>[];
  /** Answer with this HTTP status and a protocol-shaped error body. */
  status?: number;
  /** `retry-after` header (seconds) for error statuses. */
  retryAfter?: number;
  /** Error message for `status`. */
  message?: string;
  /** 200 with a body that is not valid JSON. */
  malformed?: boolean;
  /** Stream only: send this many events/chunks, then reset the connection. */
  cutAfter?: number;
  /**
   * Stream only: send this many events/chunks, then the first half of the
   * next one, and end the body cleanly there (as a connection-delimited body
   * that closes mid-event looks to the client).
   */
  endInside?: number;
  /**
   * Send this many events/chunks (a reply that is not streamed, in every
   * protocol but Bedrock's: this many bytes of its JSON body), then send
   * nothing more and keep the connection open until the client goes away (or
   * the server closes).
   */
  stallAfter?: number;
  /** Delay before the first byte (headers), ms. */
  delayMs?: number;
  /**
   * Nothing is sent until this settles (after `delayMs`): a test holds one
   * run's reply while another run goes on, and releases it when it chooses.
   */
  until?: Promise<unknown>;
  /** Delay between stream chunks, ms. */
  chunkDelayMs?: number;
  /** Converse only: the reply's `stopReason` (default `end_turn`, or `tool_use` with tool calls). */
  stopReason?: string;
  /**
   * Stream only: after the first event (Bedrock: frame), the error the
   * protocol reports inside a stream, of this type, ending it
   * (`protocol_parts.ts` `streamErrorPiece`; Bedrock: an exception message).
   */
  exception?: StreamError;
  /** Send this JSON body as is (status 200), e.g. `{choices: []}`. */
  raw?: unknown;
  /**
   * A streamed request only: send these pieces (SSE events, NDJSON lines)
   * instead of the protocol's own rendering of the step — how servers that
   * stream a protocol their own way are played.
   */
  pieces?: Piece[];
  /**
   * Answer with this body as is, not in the protocol's shape (a proxy's HTML
   * page, a text error): status (default 200) and content type as given;
   * `stall`: its first 6 bytes, then nothing more until the client goes away.
   */
  page?: { status?: number; contentType?: string; body: string; stall?: boolean };
}

/** A recorded request. */
export interface RecordedRequest {
  protocol: Protocol;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  stream: boolean;
  /**
   * `performance.now()` when the handler started, before the body was read:
   * where the server's time for this request begins.
   */
  arrivedAt: number;
  /** `performance.now()` when the request's body had been read and parsed. */
  receivedAt: number;
  /** `performance.now()` when the first response byte was written. */
  firstByteAt?: number;
}

/** Protocols spoken. */
/** (`bedrock`: InvokeModel with Anthropic bodies; `converse`: Bedrock Converse.) */
export type Protocol = "chat" | "responses" | "anthropic" | "ollama" | "bedrock" | "converse";

/** A running server. */
export interface ProviderServer extends AsyncDisposable {
  /** Base url, e.g. `http://127.0.0.1:41234` (no trailing slash, no `/v1`). */
  url: string;
  /** Port. */
  port: number;
  /** Requests received so far. */
  requests: RecordedRequest[];
  /** Appends steps to the script. */
  script(...steps: ScriptStep[]): void;
  /** Steps not used yet. */
  pending(): number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Options of {@link startProviderServer}. */
export interface ProviderServerOptions {
  /** Initial script. */
  script?: ScriptStep[];
  /** Reply for requests when the script is empty (default: HTTP 500 "script exhausted"). */
  fallback?: (req: RecordedRequest) => ScriptStep;
  /** Port (default 0: a free one). */
  port?: number;
}
