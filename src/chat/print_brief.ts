/**
 * A compact one-line-per-message view of a chat for logs (`chat.md` §3.3
 * `printBrief`, non-normative; Ruby `Chat.print_brief` + `Log.fingerprint`).
 *
 * @module
 */
import type { Message } from "./types.ts";
import { md5hex } from "../util/hash.ts";
import {
  codePointLength,
  offsetAfterCodePoints,
  offsetOfLastCodePoints,
} from "../util/code_points.ts";

const MAX = 150;

/**
 * Ruby `Log.fingerprint` of a string, without the quotes: newlines shown as
 * `\n`; past 150 characters the middle is replaced by
 * `<...LENGTH - MD5PREFIX...>`. Characters are code points, as Ruby's
 * `String#length` counts them, so a cut never splits an emoji's surrogate
 * pair (R151-7); text without astral characters is cut by UTF-16 units alike.
 *
 * @param text any text
 * @returns at most about 150 characters
 *
 * @example
 * ```ts
 * import { fingerprint } from "./print_brief.ts";
 * fingerprint("a\nb"); // "a\\nb"
 * ```
 */
export function fingerprint(text: string): string {
  const s = text.replaceAll("\n", "\\n");
  if (s.length <= MAX) return s; // UTF-16 length ≥ code points
  const length = codePointLength(s);
  if (length <= MAX) return s;
  const middle = `<...${length} - ${md5hex(s).slice(0, 5)}...>`;
  const half = Math.floor((MAX - middle.length) / 2);
  return s.slice(0, offsetAfterCodePoints(s, half - 1)) + middle +
    s.slice(offsetOfLastCodePoints(s, half));
}

/**
 * Prints a chat briefly: `role: <fingerprint>` per message, blank-line
 * separated, with the full text for the roles in `expand`.
 *
 * @param chat messages
 * @param expand roles to print in full
 * @returns the text, starting with `\n` like {@link print}
 *
 * @example
 * ```ts
 * import { printBrief } from "./print_brief.ts";
 * printBrief([{ role: "system", content: "Be brief" }, { role: "user", content: "hi" }], ["user"]);
 * // "\nsystem: Be brief\n\nuser: \n\nhi"
 * ```
 */
export function printBrief(chat: readonly Message[], expand: readonly string[] = []): string {
  const full = new Set(expand.map(String));
  return "\n" + chat.map((m) => {
    const role = String(m.role);
    const c = m.content;
    const text = c !== null && typeof c === "object"
      ? JSON.stringify(c)
      : c === null || c === undefined
      ? ""
      : String(c);
    return full.has(role) ? `${role}: \n\n${text}` : `${role}: ${fingerprint(text)}`;
  }).join("\n\n");
}
