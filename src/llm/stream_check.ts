/**
 * Whether the reply to a streamed request is the stream asked for. A proxy's
 * login page, a web UI's HTML, or any other page answering with 200 is not:
 * read as a stream it would look like one that "ended early, after 0 events"
 * and be retried. Its content type and first bytes tell; when neither is the
 * stream's, the request fails at once, saying what came back.
 *
 * @module
 */
import type { ScoutError } from "../errors.ts";
import { bodyExcerpt } from "./body_text.ts";
import { responseError } from "./errors.ts";

/** A kind of stream a backend reads. */
export interface StreamKind {
  /** What it is called in errors ("an event stream"). */
  name: string;
  /** Its content types. */
  contentType: RegExp;
  /** Whether a body's first characters look like it (a mislabelled stream is still read). */
  looksLike: (head: string) => boolean;
}

/** Server-sent events (OpenAI, Anthropic): a body that starts with an SSE field or comment. */
export const SSE_STREAM: StreamKind = {
  name: "an event stream",
  contentType: /text\/event-stream/i,
  looksLike: (head) => /^(?:(?:data|event|id|retry)[ \t]*:|:)/.test(head.trimStart()),
};

/** JSON lines (Ollama): a body that starts with an object. */
export const NDJSON_STREAM: StreamKind = {
  name: "a stream of JSON lines",
  contentType: /json/i,
  looksLike: (head) => head.trimStart().startsWith("{"),
};

/** What answered a streamed request instead of the stream. */
export interface NotAStream {
  /** HTTP status. */
  status: number;
  /** Content type (without parameters), `""` when none was sent. */
  contentType: string;
  /** The start of the body (up to 64 KiB). */
  text: string;
}

/**
 * The first characters of a body (at least `want` that are not blank, or
 * all of a shorter body), and the body again, whole.
 *
 * @param body the response body (locked by this call)
 * @param want non-blank characters to read before deciding
 * @returns the head and a body that yields every byte
 */
export async function peekBody(
  body: ReadableStream<Uint8Array>,
  want = 8,
): Promise<{ head: string; body: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  const dec = new TextDecoder();
  let head = "";
  let done = false;
  while (head.trim().length < want) {
    const r = await reader.read();
    if (r.done) {
      done = true;
      break;
    }
    chunks.push(r.value);
    head += dec.decode(r.value, { stream: true });
  }
  const whole = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      if (done) c.close();
    },
    async pull(c) {
      const r = await reader.read();
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { head, body: whole };
}

/**
 * Whether a reply is a stream of `kind`: by its content type, or else by how
 * its body starts.
 *
 * @param contentType the response's content type
 * @param head the body's first characters ({@link peekBody})
 * @param kind the stream expected
 * @returns true when it is to be read as that stream
 */
export function isStreamOf(contentType: string, head: string, kind: StreamKind): boolean {
  return kind.contentType.test(contentType) || kind.looksLike(head);
}

/**
 * What came back instead of a stream: status, content type and the start of
 * the body (up to `max` bytes; the rest is not waited for, and a body that
 * fails while read gives what arrived).
 *
 * @param res the response (status, headers)
 * @param body its body (or what is left of it after a peek)
 * @param max bytes to read at most
 * @returns the description
 */
export async function readNotAStream(
  res: { status: number; headers: Headers },
  body: ReadableStream<Uint8Array> | null,
  max = 65_536,
): Promise<NotAStream> {
  const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const bytes: Uint8Array[] = [];
  let size = 0;
  if (body) {
    const reader = body.getReader();
    try {
      while (size < max) {
        const r = await reader.read();
        if (r.done) break;
        bytes.push(r.value);
        size += r.value.length;
      }
    } catch { /* what arrived before the body failed (or timed out) is enough */ }
    reader.cancel().catch(() => {});
  }
  const dec = new TextDecoder();
  const text = bytes.map((b) => dec.decode(b, { stream: true })).join("") + dec.decode();
  return { status: res.status, contentType, text };
}

/**
 * The error for a streamed request answered with something else: not
 * retried (the same page would come back), and saying what came back.
 *
 * @param backend backend name
 * @param got status, content type and body start
 * @param kind the stream expected
 * @returns the error (`provider_response`)
 *
 * @example
 * ```ts
 * import { notAStreamError, SSE_STREAM } from "./stream_check.ts";
 * notAStreamError("openai", { status: 200, contentType: "text/html", text: "<h1>Sign in</h1>" }, SSE_STREAM).message;
 * // 'Provider "openai" answered a streamed request with HTTP 200 text/html, not an event stream: Sign in'
 * ```
 */
export function notAStreamError(backend: string, got: NotAStream, kind: StreamKind): ScoutError {
  const text = bodyExcerpt(got.text, got.contentType);
  return responseError(
    backend,
    `answered a streamed request with HTTP ${got.status} ${
      got.contentType || "and no content type"
    }, not ${kind.name}${text ? `: ${text}` : " (an empty body)"}`,
  );
}
