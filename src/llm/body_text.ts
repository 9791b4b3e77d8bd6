/**
 * A provider's reply body as an error message may quote it: an HTML page
 * (a proxy's error or login page) as its text without markup, anything else
 * with its whitespace collapsed; cut to a short excerpt.
 *
 * @module
 */
import { clipEnd } from "../util/clip.ts";

/** A Map: `&constructor;` is no entity of Object.prototype's (R112-5). */
const ENTITIES = new Map([
  ["amp", "&"],
  ["lt", "<"],
  ["gt", ">"],
  ["quot", '"'],
  ["apos", "'"],
  ["nbsp", " "],
]);

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : m;
    }
    return ENTITIES.get(name.toLowerCase()) ?? m;
  });
}

/**
 * Whether a body is HTML: its content type says so, or it starts with a
 * doctype or an `<html>`, `<head>` or `<body>` tag.
 *
 * @param text the body
 * @param contentType the response's content type, if known
 * @returns true for HTML
 */
export function looksLikeHtml(text: string, contentType = ""): boolean {
  return /html/i.test(contentType) || /^\s*<(!doctype\s+html|html|head|body)\b/i.test(text);
}

/**
 * The text of an HTML page: comments, `head`, `script` and `style` removed,
 * tags dropped, entities decoded, whitespace collapsed (the title when the
 * body has no text).
 *
 * @param html the page
 * @returns its text
 *
 * @example
 * ```ts
 * import { htmlText } from "./body_text.ts";
 * htmlText("<html><head><title>502</title></head><body><h1>Bad Gateway</h1></body></html>"); // "Bad Gateway"
 * ```
 */
export function htmlText(html: string): string {
  const collapse = (t: string) => decodeEntities(t.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ");
  const text = collapse(
    html.replace(/<!--[\s\S]*?(-->|$)/g, " ")
      .replace(/<(head|script|style|template)\b[\s\S]*?(<\/\1\s*>|$)/gi, " "),
  ).trim();
  if (text) return text;
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  return title ? collapse(title).trim() : "";
}

/**
 * A short excerpt of a body for an error message: HTML as its text
 * ({@link htmlText}), anything else with whitespace collapsed.
 *
 * @param text the body
 * @param contentType the response's content type, if known
 * @param max the longest excerpt, in characters (an ellipsis marks a cut)
 * @returns the excerpt
 */
export function bodyExcerpt(text: string, contentType = "", max = 200): string {
  const t = looksLikeHtml(text, contentType) ? htmlText(text) : text.replace(/\s+/g, " ").trim();
  return clipEnd(t, max);
}
