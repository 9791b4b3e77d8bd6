/**
 * Renderers shared by the `chat` commands: the readable listing (index, role,
 * content) and the `{role, content}` JSON array. Pure functions of messages.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import type { Io } from "./io.ts";
import { paint } from "./io.ts";
import { displayWidth, padToWidth } from "../util/display_width.ts";
import { jsonText } from "../util/json_text.ts";

/**
 * Messages as `{role, content}` records (extra fields dropped, undefined → null).
 *
 * @param chat messages
 * @returns plain records
 */
export function messageRecords(chat: readonly Message[]): { role: string; content: unknown }[] {
  return chat.map((m) => ({ role: m.role, content: m.content ?? null }));
}

/**
 * JSON text of messages as `{role, content}` records, one message per line
 * inside the array, so the output is both valid JSON and diff-friendly.
 *
 * @param chat messages
 * @returns JSON text (no trailing newline)
 */
export function messagesJson(chat: readonly Message[]): string {
  if (chat.length === 0) return "[]";
  return "[\n" + messageRecords(chat).map((r) => "  " + jsonText(r)).join(",\n") + "\n]";
}

/**
 * The readable listing: one entry per message — index, role, content
 * (continuation lines indented; empty/null content dimmed; control characters
 * made visible).
 *
 * @param chat messages
 * @param io where the listing goes (for colour)
 * @returns the listing text, ending with a newline
 */
export function listing(chat: readonly Message[], io: Io): string {
  if (chat.length === 0) return paint(io, "stdout", "dim", "(no messages)") + "\n";
  const w = String(chat.length - 1).length;
  let rw = 0; // role column width, at most 24 (no spread: chats can have 100k+ messages)
  for (const m of chat) rw = Math.max(rw, Math.min(24, displayWidth(String(m.role))));
  const pad = " ".repeat(w + rw + 4);
  let out = "";
  chat.forEach((m, i) => {
    const head = `${String(i).padStart(w)}  ${
      paint(io, "stdout", "bold", padToWidth(String(m.role), rw))
    }  `;
    const c = m.content;
    const text = c === null || c === undefined
      ? paint(io, "stdout", "dim", "(null)")
      : c === ""
      ? paint(io, "stdout", "dim", "(empty)")
      : typeof c === "string"
      ? visible(c)
      : JSON.stringify(c);
    out += head + text.split("\n").join("\n" + pad) + "\n";
  });
  return out;
}

/**
 * Control characters other than tab and newline (NUL, CR, ESC…) shown as
 * Unicode control pictures, so a listing cannot drive the terminal.
 *
 * @param text content
 * @returns display-safe text
 */
export function visible(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\x00-\x08\x0b-\x1f\x7f]/g,
    (c) => c === "\x7f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0)),
  );
}
