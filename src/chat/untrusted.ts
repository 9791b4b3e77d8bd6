/**
 * Chat text from a client this process does not trust — a request of a
 * shared relay queue (R97-2), a chat argument of a tool call served over MCP
 * (R115-1): plain messages only. Compiling it would let the sender load
 * tools (`mcp: stdio '<command>'` starts a process, `tool:`), read this
 * machine's files (`file:`, `import:`, `directory:`, a local `image:`/`pdf:`),
 * run jobs (`task:`, `exec_task:`, `job:`) or route the ask (`option:`,
 * `endpoint:`); such a line fails the request, naming it. Both receivers
 * hold chat text to this one rule.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { parseWithLines } from "./parse.ts";
import type { Message } from "./types.ts";
import { clipEnd } from "../util/clip.ts";

/** Roles chat text from an untrusted client may hold. */
export const PLAIN_ROLES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "developer",
  "function_call",
  "function_call_output",
  "websearch",
  "meta",
  "previous_response_id",
]);

/**
 * Whether a reference is a URL (remote, or a `data:` URL carrying the bytes).
 *
 * @param ref the reference
 * @returns true for `http(s)://`, `ftp://` or `data:`
 *
 * @example
 * ```ts
 * import { isUrl } from "./untrusted.ts";
 * isUrl("https://x/cat.png"); // true
 * isUrl("/home/me/cat.png"); // false
 * ```
 */
export function isUrl(ref: string): boolean {
  return /^(https?|ftp):\/\//i.test(ref) || ref.startsWith("data:");
}

/** Who sent untrusted chat text, for the refusal's message. */
export interface UntrustedSource {
  /** What the message starts with (`Bad relay request: "question"`, `Input "chat" of Mc/ask`). */
  label: string;
  /** Who sent it (`a queue`, `an MCP client`). */
  from: string;
  /** What the receiver does not do for it (`the worker compiles nothing and reads no files`). */
  why: string;
}

/** Whether an untrusted message is allowed: a plain role, or an image/pdf given by URL. */
function allowed(m: Message): boolean {
  if (PLAIN_ROLES.has(m.role)) return true;
  return (m.role === "image" || m.role === "pdf") && isUrl(String(m.content).trim());
}

/** A line as a refusal quotes it: trimmed, at most 80 characters. */
function shown(line: string): string {
  const t = line.trim();
  return t.length > 80 ? clipEnd(t, 79) : t;
}

/**
 * The messages of untrusted chat text — chat text parsed (never compiled),
 * or a list of `{role, content}` — when they are plain messages only
 * ({@link PLAIN_ROLES}, and `image`/`pdf` given by URL).
 *
 * @param value the chat text or message list
 * @param source who sent it (for the error)
 * @returns the messages (`{role, content}` of a list)
 * @throws ScoutError `invalid_input` for another shape, or naming the first
 *   refused line (`line 1 "mcp: stdio '…'"`; `message 2` of a list)
 *
 * @example
 * ```ts
 * import { untrustedMessages } from "./untrusted.ts";
 * const source = { label: "Input", from: "a client", why: "nothing is compiled" };
 * untrustedMessages("system: be brief\n\nuser: hi", source).length; // 2
 * // untrustedMessages("file: /etc/passwd", source) throws:
 * // Input: line 1 "file: /etc/passwd": "file:" messages are not accepted from a client (…)
 * ```
 */
export function untrustedMessages(value: unknown, source: UntrustedSource): Message[] {
  let messages: Message[];
  let where: (i: number) => string;
  if (typeof value === "string") {
    const parsed = parseWithLines(value);
    const text = value.split(/\r?\n/);
    messages = parsed.chat;
    where = (i) => {
      const n = parsed.lines[i] ?? 1;
      return `line ${n} "${shown(text[n - 1] ?? "")}"`;
    };
  } else if (
    Array.isArray(value) &&
    value.every((m) => m && typeof m === "object" && typeof m.role === "string")
  ) {
    messages = value.map((m) => ({ role: m.role, content: m.content ?? "" }));
    where = (i) => `message ${i + 1}`;
  } else {
    throw new ScoutError(
      "invalid_input",
      `${source.label} must be chat text or a list of {role, content}`,
    );
  }
  const i = messages.findIndex((m) => !allowed(m));
  if (i < 0) return messages;
  const role = messages[i]!.role;
  throw new ScoutError(
    "invalid_input",
    `${source.label}: ${where(i)}: "${role}:" messages are not accepted from ${source.from} ` +
      `(${source.why}; allowed: ${[...PLAIN_ROLES].join(", ")}, image/pdf urls)`,
    { role },
  );
}
