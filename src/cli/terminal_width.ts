/**
 * How wide text is on a terminal, and text cut to a width: a progress line
 * longer than the terminal wraps, and the `\r` + erase that redraws it then
 * clears only its last row, leaving the others behind (R102-11).
 *
 * @module
 */

/** User-perceived characters (a flag, a family emoji, `e` + a combining accent: one each). */
const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * Characters a terminal draws two columns wide: emoji shown as emoji, and the
 * East Asian wide and fullwidth blocks (Hangul, CJK, kana, fullwidth forms).
 */
const WIDE =
  /^(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFD}])/u;

/** A character's columns: 0 for a control character, 2 for a wide one, else 1. */
function columnsOf(grapheme: string): number {
  const first = grapheme.charCodeAt(0);
  if (first < 0x20 || first === 0x7f) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}

/**
 * The columns `text` takes on a terminal: one per character (grapheme), two
 * for a wide one (CJK, emoji), none for a control character.
 *
 * @param text plain text (no escape sequences)
 * @returns its width in columns
 *
 * @example
 * ```ts
 * import { displayWidth } from "./terminal_width.ts";
 * displayWidth("ab"); // 2
 * displayWidth("日本"); // 4
 * ```
 */
export function displayWidth(text: string): number {
  let n = 0;
  for (const { segment } of graphemes.segment(text)) n += columnsOf(segment);
  return n;
}

/**
 * `text` as it fits in `width` columns: unchanged when it does, else cut
 * between characters (never inside one: a surrogate pair, a flag, a letter
 * and its accent) and ended with `…`, the whole at most `width` columns.
 *
 * @param text plain text (no escape sequences)
 * @param width columns available
 * @returns the text, cut to fit
 *
 * @example
 * ```ts
 * import { fitWidth } from "./terminal_width.ts";
 * fitWidth("start Baking/cake/Default", 12); // "start Bakin…"
 * fitWidth("short", 12); // "short"
 * ```
 */
export function fitWidth(text: string, width: number): string {
  if (text.length * 2 <= width) return text; // no character takes more than 2 columns
  if (displayWidth(text) <= width) return text;
  if (width < 1) return "";
  let used = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    const w = columnsOf(segment);
    if (used + w > width - 1) break; // room for the `…`
    used += w;
    end = index + segment.length;
  }
  return `${text.slice(0, end)}…`;
}
