/**
 * Appending messages to the text of a chat file so that the whole file reads
 * back as its old messages followed by the new ones (`docs/spec-notes/chat.md`,
 * D26 "Appending").
 *
 * Printing the new messages after the old text is not always enough: an
 * opening tag in the old text that had no closing tag after it becomes a block
 * once the new text brings one (for the port, and for Ruby, which looks for
 * the closer anywhere), and a hand-written file may end inside a block. The
 * appended text is therefore checked by parsing; if it does not read back as
 * expected, the whole chat is printed again.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { lastCloserOffsets, parse, XML_OPEN } from "./parse.ts";
import { bodyText, printMessages } from "./print.ts";
import { isRubySpace, lineEndOf, withLineEnds } from "./text.ts";
import { concatBytes, decodeEscaped, encodeEscaped, splitBom } from "../util/utf8_bytes.ts";

/** How an append is told of what it did. */
export interface AppendOptions {
  /**
   * Called when the new messages could not simply follow the old text (it
   * ends inside an open block, or the new text closes a tag it opened) and
   * the whole chat is printed again: every message kept, but the file's
   * text rewritten — a full diff in git, which the caller may want to tell.
   */
  onRewritten?: () => void;
}

/** Same roles and contents (extra fields aside). */
function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  return a.length === b.length &&
    a.every((m, i) => m.role === b[i]!.role && m.content === b[i]!.content);
}

/** The tags of the lines of `text` that have an opening-tag shape. */
function openingTags(text: string): Set<string> {
  const tags = new Set<string>();
  for (let pos = 0; pos <= text.length;) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1) nl = text.length;
    let i = pos;
    while (i < nl && isRubySpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 60 /* < */) {
      const m = XML_OPEN.exec(text.slice(i, nl));
      if (m !== null) tags.add(m[1]!);
    }
    pos = nl + 1;
  }
  return tags;
}

/**
 * True if a tag closed in `added` but nowhere in `head` has an opening-tag
 * line in `head`: Ruby (whose row 7 looks for the closer anywhere) would now
 * open a block there.
 */
function opensEarlierTag(head: string, added: string): boolean {
  const newClosers = [...lastCloserOffsets(added).keys()];
  if (newClosers.length === 0) return false;
  const old = lastCloserOffsets(head);
  const opening = openingTags(head);
  return newClosers.some((tag) => !old.has(tag) && opening.has(tag));
}

/**
 * The text of a chat file after appending `messages` to `existing`: the old
 * text with trailing whitespace removed, a blank line, the new messages and a
 * final newline; or, when that would not read back as the old messages
 * followed by the new ones (in the port or in Ruby), the whole chat printed
 * again. An empty or blank `existing` gives the printed messages. In a CRLF
 * file (its first line ends so) the lines added end in CRLF too, a new
 * content's own line ends included (as `--inline` writes a reply), so the
 * file keeps one line end (LF, as before, when CRLF would not read back).
 *
 * @param existing current text of the chat file ("" when it does not exist)
 * @param messages messages to add; roles must be header words
 * @param o `onRewritten`: told when the whole chat is printed again
 * @returns the new file text
 * @throws {ScoutError} `chat_print` when a role is not a header word
 *
 * @example
 * ```ts
 * import { appendChatText } from "./print_append.ts";
 * appendChatText("user: hi\n", [{ role: "assistant", content: "hello" }]);
 * // "user: hi\n\nassistant:\n\nhello\n"
 * ```
 */
export function appendChatText(
  existing: string,
  messages: readonly Message[],
  o: AppendOptions = {},
): string {
  if (messages.length === 0) return existing;
  let end = existing.length;
  while (end > 0 && isRubySpace(existing.charCodeAt(end - 1))) end--;
  const head = existing.slice(0, end);
  if (head === "") return printMessages(messages, {}).replace(/^\n/, "") + "\n";
  const added = printMessages(messages, { keepLeadingEmpty: true, before: head });
  const old = parse(head);
  if (!opensEarlierTag(head, added)) {
    // the file's line end first; LF (as before) if CRLF would not read back
    for (const eol of new Set([lineEndOf(existing), "\n" as const])) {
      const text = head + eol + withLineEnds(added, eol) + eol;
      const want = messages.map((m) => ({
        role: m.role,
        content: withLineEnds(bodyText(m.content), eol),
      }));
      if (sameMessages(parse(text), [...old, ...want])) return text;
    }
  }
  // Print everything again; text before the first header stays headerless.
  o.onRewritten?.();
  const leadingText = old.length > 0 && !(old[0]!.role === "user" && old[0]!.content === "");
  return printMessages([...old, ...messages], { headerlessFirst: leadingText })
    .replace(/^\n/, "") + "\n";
}

const utf8 = new TextEncoder();

/**
 * {@link appendChatText} on a chat file's bytes: what the file keeps of its
 * old text (all of it but trailing whitespace, when the new messages can
 * simply follow) stays byte for byte — its byte-order mark, and bytes that
 * are not UTF-8, which a decode would have replaced by U+FFFD.
 *
 * @param existing the file's bytes (empty when it does not exist)
 * @param messages messages to add
 * @param o `onRewritten`: told when the whole chat is printed again
 * @returns the new file's bytes
 * @throws {ScoutError} `chat_print` when a role is not a header word
 *
 * @example
 * ```ts
 * import { appendChatBytes } from "./print_append.ts";
 * appendChatBytes(Uint8Array.of(0x63, 0xe9, 0x0a), [{ role: "user", content: "hi" }]);
 * // the bytes 63 e9, then "\n\nuser:\n\nhi\n"
 * ```
 */
export function appendChatBytes(
  existing: Uint8Array,
  messages: readonly Message[],
  o: AppendOptions = {},
): Uint8Array {
  const { bom, body } = splitBom(existing);
  const { text, escaped } = decodeEscaped(body);
  const out = appendChatText(text, messages, o);
  // only a file with escaped bytes gives its escapes back as bytes: a lone surrogate in a new
  // message is written as UTF-8 writes it (U+FFFD), as before
  return concatBytes([bom, escaped ? encodeEscaped(out) : utf8.encode(out)]);
}
