/**
 * Message preparation shared by every adapter: which roles reach a provider
 * (`inference.md` §0), the tool-call messages decoded from their JSON content
 * (§5.5), and local or remote media for `image` / `pdf` messages.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import { basename, extname } from "node:path";
import type { Message } from "../chat/types.ts";
import { isUrl } from "../chat/untrusted.ts";
import { ScoutError } from "../errors.ts";
import { namedFileError } from "../util/fs.ts";
import { contentObject } from "../chat/tool_calls.ts";
import { locateAt, writtenAt } from "../chat/written_at.ts";
import { callFields, callIdOf } from "../tools/calls.ts";
import { clipEnd } from "../util/clip.ts";

/** Roles that configure the ask and are never sent as messages. */
export const DIRECTIVE_ROLES: ReadonlySet<string> = new Set([
  "meta",
  "previous_response_id",
  "tool",
  "mcp",
  "kb",
  "introduce",
  "association",
  "clear_tools",
  "clear_associations",
  "endpoint",
  "model",
  "backend",
  "agent",
  "persist",
  "format",
  "option",
  "sticky_option",
  "config",
  "allow_path",
  "allow_read_path",
  "socialize",
]);

/**
 * The messages a provider should see: directive roles and empty-string
 * contents dropped (copies are not made; messages are not changed).
 *
 * @param messages compiled messages
 * @returns the sendable ones, in order
 */
export function sendableMessages(messages: readonly Message[]): Message[] {
  return messages.filter((m) => !DIRECTIVE_ROLES.has(m.role) && m.content !== "");
}

/** A `function_call` message decoded. */
export interface CallMessage {
  /** Tool name. */
  name: string;
  /** Arguments: object, or the raw string when not JSON. */
  arguments: unknown;
  /** Stored id, if any. */
  id?: string;
}

/**
 * Decodes a `function_call` message (`{name, arguments, id}` JSON; `call_id`
 * and `function.{name,arguments}` accepted too).
 *
 * @param m the message
 * @returns the decoded call
 * @throws ScoutError `invalid_input` when the content is not a call object
 */
export function decodeCall(m: Message): CallMessage {
  const o = contentObject(m.content);
  const c = o ? callFields(o) : undefined;
  if (!c || typeof c.name !== "string") {
    const e = new ScoutError(
      "invalid_input",
      `Cannot read function_call message: ${preview(m.content)}`,
    );
    throw locateAt(e, writtenAt(m)); // a hand-written line: its chat file and line (R133-3)
  }
  const out: CallMessage = { name: c.name, arguments: c.arguments };
  if (c.id !== undefined) out.id = c.id;
  return out;
}

/** A `function_call_output` message decoded. */
export interface OutputMessage {
  /** The output text sent to the provider (the envelope's `content`). */
  content: string;
  /** Call id, if stored. */
  id?: string;
  /** Tool name, if stored. */
  name?: string;
  /** The call failed: the envelope's `error` is `"error"` (not a `"truncated"` result). */
  failed?: boolean;
}

/**
 * Decodes a `function_call_output` message: the envelope's `content` (made
 * text), id, and whether the call failed; a non-JSON content is the output
 * text itself.
 *
 * @param m the message
 * @returns the decoded output
 */
export function decodeOutput(m: Message): OutputMessage {
  const o = contentObject(m.content);
  if (!o || !("content" in o)) {
    return { content: typeof m.content === "string" ? m.content : JSON.stringify(m.content) };
  }
  const c = o.content;
  const out: OutputMessage = {
    content: typeof c === "string" ? c : c === null || c === undefined ? "" : JSON.stringify(c),
  };
  const id = callIdOf(o);
  if (id !== undefined) out.id = id;
  if (typeof o.name === "string") out.name = o.name;
  if (o.error === "error" || o.error === true) out.failed = true;
  return out;
}

function preview(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
  return clipEnd(s, 120);
}

/** Decoded tool messages by message object, with the content they were decoded from. */
const decodedMemo = new WeakMap<Message, { content: unknown; decoded: unknown }>();

/**
 * `decode(m)`, remembered per message object while its content is the same
 * string: a live chat is sent again every round, and its tool messages would be
 * JSON-parsed again each time. Callers copy what they keep (the result is shared).
 */
function decodedOnce<T>(m: Message, decode: (m: Message) => T): T {
  if (typeof m.content !== "string") return decode(m); // an object may change in place
  const memo = decodedMemo.get(m);
  if (memo && memo.content === m.content) return memo.decoded as T;
  const decoded = decode(m);
  decodedMemo.set(m, { content: m.content, decoded });
  return decoded;
}

/**
 * Pairs tool messages with ids: calls without an id get `call_<index>`
 * (message index), outputs without one take the nearest preceding call's id.
 *
 * @param messages sendable messages
 * @returns decoded calls/outputs by message index
 */
export function toolMessageIds(
  messages: readonly Message[],
): Map<number, CallMessage & { id: string } | OutputMessage & { id: string }> {
  const out = new Map<number, CallMessage & { id: string } | OutputMessage & { id: string }>();
  let lastCallId: string | undefined;
  messages.forEach((m, i) => {
    if (m.role === "function_call") {
      const c = decodedOnce(m, decodeCall);
      const id = c.id ?? `call_${i}`;
      lastCallId = id;
      out.set(i, { ...c, id });
    } else if (m.role === "function_call_output") {
      const o = decodedOnce(m, decodeOutput);
      out.set(i, { ...o, id: o.id ?? lastCallId ?? `call_${i}` });
    }
  });
  return out;
}

/** Whether a reference is a remote URL (not a `data:` URL). */
export function isRemoteUrl(ref: string): boolean {
  return isUrl(ref) && !ref.startsWith("data:");
}

/**
 * A media reference a process without this machine's files can use: a URL as
 * is, a local file as a base64 `data:` URL (a PDF's file name in a `name=`
 * parameter, RFC 2397). The relay sends these (R100-1: a worker reads no files).
 *
 * @param ref file path (as compiled) or URL
 * @param kind `image` or `pdf`
 * @returns the URL
 * @throws ScoutError as {@link loadMedia}
 */
export function mediaDataUrl(ref: string, kind: "image" | "pdf"): string {
  if (isUrl(ref)) return ref;
  const md = loadMedia(ref, kind);
  const name = kind === "pdf" ? `;name=${encodeURIComponent(md.filename)}` : "";
  return `data:${md.mime}${name};base64,${md.base64}`;
}

/** A base64 `data:` URL as media (`invalid_input` for another form). */
function dataUrlMedia(ref: string, kind: "image" | "pdf"): Media {
  const m = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/s.exec(ref);
  if (!m) {
    throw new ScoutError(
      "invalid_input",
      `Not a base64 data URL for a ${kind}: "${clipEnd(ref, 40, "")}"`,
    );
  }
  const name = /;name=([^;]*)/.exec(m[2]!)?.[1];
  const filename = name ? decodeURIComponent(name) : kind === "pdf" ? "document.pdf" : "image";
  return { mime: m[1]!, base64: m[3]!, filename };
}

const IMAGE_TYPES: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Local media loaded for a provider. */
export interface Media {
  /** MIME type. */
  mime: string;
  /** Base64 bytes. */
  base64: string;
  /** File name. */
  filename: string;
}

/**
 * Loads a local image or PDF (or reads a base64 `data:` URL, as a relay
 * worker receives them).
 *
 * @param path file path (as compiled) or `data:` URL
 * @param kind `image` or `pdf`
 * @returns mime, base64 and file name
 * @throws ScoutError `file_not_found`, `io` (a directory, no permission…) /
 *   `invalid_input` (unsupported image type)
 */
export function loadMedia(path: string, kind: "image" | "pdf"): Media {
  if (path.startsWith("data:")) return dataUrlMedia(path, kind);
  let mime: string;
  if (kind === "pdf") mime = "application/pdf";
  else {
    const t = IMAGE_TYPES[extname(path).toLowerCase()];
    if (!t) {
      throw new ScoutError(
        "invalid_input",
        `Unsupported image type "${extname(path) || path}" (use jpg, png, gif or webp)`,
        { file: path },
      );
    }
    mime = t;
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw namedFileError(path, e);
  }
  return { mime, base64: Buffer.from(bytes).toString("base64"), filename: basename(path) };
}

/**
 * The content of a message as text for providers that need a string.
 *
 * @param content message content
 * @returns text (JSON for structured content)
 */
export function textContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
}
