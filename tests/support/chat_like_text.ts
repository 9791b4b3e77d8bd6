/**
 * A shared fast-check generator of chat-like text (see {@link chatLikeText}).
 *
 * @module
 */
import fc from "fast-check";

/**
 * Chat-like text for the parser's and printer's properties: pieces that trigger every rule
 * (headers inline, block and escaped; fences; one-line and multi-line
 * `[[ ]]`; `{{{ }}}` command blocks; xml blocks closed later, on the same
 * line or never; CR, NUL, U+FFFD, blank lines) and random graphemes, joined
 * by assorted line ends; or arbitrary binary-ish strings.
 */
export const chatLikeText: fc.Arbitrary<string> = (() => {
  const piece = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 10 }),
    fc.constantFrom(
      "user:",
      "assistant: x",
      "meta: pt=1",
      "clear:",
      "skip:",
      "agent: y",
      "\\user: e",
      "\\\\a:",
      "\\",
      "```",
      " ```x",
      "[[",
      "]]",
      "x]]",
      "[[a]]",
      " [[ ",
      "a:-- b {{{",
      "a:-- b }}}",
      ":--",
      ":-- ",
      " }}}",
      "<a>",
      "</a>",
      "<b x='1'>",
      "</b>",
      "<a></a>",
      "\r",
      "\0",
      "\uFFFD",
      " ",
      "\t",
      ":",
      "b:",
      "\\```",
      " \\\\```x",
      "\\[[",
      "\\<a>",
      "\\<b x='1'> y",
      "a:--\\ b {{{",
      "\\a:--\\\\ b {{{",
      "<a>:-- b {{{",
      "<a>x</a>",
      "[[",
      "]]",
    ),
  );
  const text = fc.array(piece, { maxLength: 40 }).chain((parts) =>
    fc.array(fc.constantFrom("\n", "\r\n", "", " ", "\n\n"), {
      minLength: parts.length,
      maxLength: parts.length,
    }).map((seps) => parts.map((p, i) => p + seps[i]).join(""))
  );
  return fc.oneof(text, fc.string({ unit: "binary", maxLength: 200 }));
})();
