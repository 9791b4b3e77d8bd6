/**
 * How wide text is on a terminal, text cut to a width, and text padded to a
 * width. A progress line longer than the terminal wraps, and the `\r` + erase
 * that redraws it then clears only its last row, leaving the others behind
 * (R102-11); a table column padded by `padEnd` (UTF-16 units) drifts on every
 * row holding CJK, an emoji or a combining accent (R162-3).
 *
 * A short table of our own rather than the `string-width` package
 * (docs/design-notes.md): graphemes by `Intl.Segmenter`, two columns for
 * emoji presentation and the East Asian Wide/Fullwidth blocks, none for
 * controls, combining marks and invisible format characters.
 *
 * @module
 */

/** User-perceived characters (a flag, a family emoji, `e` + a combining accent: one each). */
const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * Characters a terminal draws two columns wide: emoji shown as emoji (by
 * default, or asked for with VS16 — `☺️`, a keycap `1️⃣`), and the East Asian
 * Wide and Fullwidth blocks (Hangul, CJK, kana, Yi, fullwidth forms, Tangut,
 * Nüshu, the ideographic planes). A grapheme is as wide as what it starts with.
 */
const WIDE = new RegExp(
  "^(?:\\p{Emoji_Presentation}|[\\p{Emoji}\\p{Extended_Pictographic}]\\uFE0F|[" +
    "\\u1100-\\u115F\\u2329\\u232A\\u2E80-\\u303E\\u3041-\\u33FF\\u3400-\\u4DBF\\u4E00-\\u9FFF" +
    "\\uA000-\\uA4CF\\uA960-\\uA97F\\uAC00-\\uD7A3\\uF900-\\uFAFF\\uFE10-\\uFE19\\uFE30-\\uFE6F" +
    "\\uFF00-\\uFF60\\uFFE0-\\uFFE6\\u{16FE0}-\\u{16FF1}\\u{17000}-\\u{18CFF}\\u{18D00}-\\u{18D08}" +
    "\\u{1AFF0}-\\u{1B2FF}\\u{1F200}-\\u{1F265}\\u{20000}-\\u{3FFFD}])",
  "u",
);

/**
 * Graphemes that take no column: a combining mark with no letter before it
 * (`\u0301` at the start), and invisible format characters (zero-width space
 * and joiner, word joiner, BOM, soft hyphen, variation selectors).
 */
const ZERO = /^[\p{M}\p{Default_Ignorable_Code_Point}]+$/u;

/** Text of printable ASCII only: one column a UTF-16 unit. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** A character's columns: 0 for a control or invisible one, 2 for a wide one, else 1. */
function columnsOf(grapheme: string): number {
  const first = grapheme.charCodeAt(0);
  if (first < 0x20 || (first >= 0x7f && first < 0xa0)) return 0;
  if (first < 0x7f && grapheme.length === 1) return 1; // printable ASCII, the common case
  if (ZERO.test(grapheme)) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}

/**
 * The columns `text` takes on a terminal: one per character (grapheme), two
 * for a wide one (CJK, emoji), none for a control or invisible one.
 *
 * @param text plain text (no escape sequences)
 * @returns its width in columns
 *
 * @example
 * ```ts
 * import { displayWidth } from "./display_width.ts";
 * displayWidth("ab"); // 2
 * displayWidth("日本"); // 4
 * displayWidth("👨‍👩‍👧"); // 2 (one family emoji)
 * displayWidth("cafe\u0301"); // 4 (e and its accent take one column)
 * ```
 */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length; // most cells of most tables
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
 * import { fitWidth } from "./display_width.ts";
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

/**
 * `text` padded with spaces on the right to `width` terminal columns, as
 * `padEnd` pads to UTF-16 units: the column after it starts at the same place
 * on every row of a table, whatever the text holds (CJK, emoji, accents).
 * Never cut: text already as wide or wider is returned as is.
 *
 * @param text plain text (no escape sequences)
 * @param width the columns to fill
 * @returns the padded text
 *
 * @example
 * ```ts
 * import { padToWidth } from "./display_width.ts";
 * padToWidth("日本", 6); // "日本  "
 * padToWidth("ab", 4); // "ab  "
 * ```
 */
export function padToWidth(text: string, width: number): string {
  const w = displayWidth(text);
  return w >= width ? text : text + " ".repeat(width - w);
}

/**
 * The widest of `texts` in terminal columns (0 when there are none): the
 * width to give `padToWidth` for a column.
 *
 * @param texts the column's cells
 * @returns the columns the widest cell takes
 *
 * @example
 * ```ts
 * import { columnWidth } from "./display_width.ts";
 * columnWidth(["plain", "料理"]); // 5
 * ```
 */
export function columnWidth(texts: Iterable<string>): number {
  let max = 0;
  for (const t of texts) max = Math.max(max, displayWidth(t));
  return max;
}
