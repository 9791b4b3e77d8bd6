/**
 * Properties of issue 10 part A: a printed chat reads back as it was written,
 * in the port (exactly) and in the Ruby parser (same messages and roles,
 * content differing only by the backslashes of escaped lines), and print is a
 * fixed point of print ∘ parse.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { INLINE_ROLES, parse, print } from "../../src/chat/mod.ts";
import type { Chat, Message } from "../../src/chat/mod.ts";
import { appendChatText } from "../../src/chat/print_append.ts";
import { mergeConflict } from "../../src/chat/conflict.ts";
import { lineEndOf, withLineEnds } from "../../src/chat/text.ts";
import { chatLikeText } from "../support/chat_like_text.ts";
import { assertRubyReads, expectedRead } from "../support/roundtrip.ts";

/** Message lists per run of the print→parse property (the issue asks for ≥ 20,000). */
const ROUND_TRIP_RUNS = Number(Deno.env.get("ROUND_TRIP_RUNS") ?? 20_000);

/** Lines chosen to hit every rule of both parsers. */
const hostileLine = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      "```",
      "```ts",
      "  ``` x",
      "\\```",
      "\\\\```",
      "[[",
      "]]",
      "[[x]]",
      "[[ a",
      "x]]",
      "\\[[",
      "{{{",
      "}}}",
      "sh:-- ls {{{",
      "sh:-- ls }}}",
      "Shell:-- ls {{{",
      "  a:-- b {{{",
      ":-- x {{{",
      "sh:--\\ ls {{{",
      "\\sh:-- ls {{{",
      "x:-- y }}}",
      "<a>",
      "</a>",
      "<think>",
      "</think>",
      "<b x='1'>",
      "</b>",
      "<a>x</a>",
      "<b>bold</b> text",
      "x </b></a>",
      "<a>:-- z {{{",
      "\\<a>",
      '<file name="f.md">',
      "</file>",
      "user: looks like a header",
      "user:",
      "assistant: x",
      "meta: pt=1",
      "clear:",
      "note:x",
      "http://example.com",
      "12:30",
      "\\user: escaped",
      "\\\\x: twice",
      "  user: indented",
      "Note: capital",
      "\\",
      "\\\\",
      "# heading",
      "",
      " ",
      "\t",
      "\r",
      "x\r",
      "user:\r",
      "\0",
      "\0user: x",
      "é ü 🌍 \uFFFD",
      // git merge-conflict markers (R95-2), escaped ones and near misses
      "<<<<<<< HEAD",
      "<<<<<<<",
      "=======",
      "======= ",
      "|||||||  base",
      ">>>>>>> feature",
      ">>>>>>>\r",
      "\\<<<<<<< HEAD",
      "\\=======",
      "\\\\>>>>>>> x",
      "  =======",
      "========",
      "<<<<<<<<",
    ),
  },
);

/** Hostile content: lines joined by LF or CRLF, or empty / whitespace-only. */
const hostileContent: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.tuple(fc.array(hostileLine, { minLength: 1, maxLength: 8 }), fc.boolean())
      .map(([ls, crlf]) => ls.join(crlf ? "\r\n" : "\n")),
  },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\n\n", " \r\n\t", "\0", null) },
  { weight: 1, arbitrary: fc.constantFrom({ a: "<a>\n</a>" }, [[1, 2]], ["[[x]]"], 7) },
);

const role = fc.oneof(
  fc.constantFrom("user", "assistant", "system", "clear", "skip", "file", "x_1"),
  fc.constantFrom(...INLINE_ROLES),
  fc.stringMatching(/^[a-z0-9_]{1,6}$/),
);
const messages = fc.array(fc.record({ role, content: hostileContent }), { maxLength: 6 });

Deno.test(`property: parse(print(m)) is m for ${ROUND_TRIP_RUNS} hostile message lists; Ruby keeps every message`, () => {
  let runs = 0;
  fc.assert(
    fc.property(messages, (chat) => {
      runs++;
      const printed = print(chat);
      const expected = expectedRead(chat);
      assert.deepEqual(parse(printed), expected);
      assertRubyReads(printed, expected);
    }),
    { numRuns: ROUND_TRIP_RUNS },
  );
  assert.equal(runs, ROUND_TRIP_RUNS);
});

Deno.test("property: print is a fixed point of print ∘ parse on chat-like text; Ruby agrees", () => {
  fc.assert(
    fc.property(chatLikeText, (t) => {
      const once = print(parse(t));
      assert.equal(print(parse(once)), once);
      assert.deepEqual(parse(once), expectedRead(parse(t)));
      assertRubyReads(once, expectedRead(parse(t)));
    }),
    { numRuns: Number(Deno.env.get("FIXED_POINT_RUNS") ?? 5000) },
  );
});

/** Contents made of merge-conflict marker lines and text (R95-2). */
const markerMessages = fc.array(
  fc.record({
    role: fc.constantFrom("user", "assistant", "tool", "x_1"),
    content: fc.array(
      fc.constantFrom(
        "<<<<<<< HEAD",
        "=======",
        "||||||| base",
        ">>>>>>> x",
        "\\<<<<<<< HEAD",
        "\\=======",
        "text",
        "user: q",
        "```",
        "<think>",
        "</think>",
        "",
      ),
      { minLength: 1, maxLength: 8 },
    ).map((ls) => ls.join("\n")),
  }),
  { maxLength: 5 },
);

Deno.test("property: contents with merge-conflict marker lines read back exactly; the printed chat holds no conflict; Ruby keeps every message (R95-2)", () => {
  fc.assert(
    fc.property(markerMessages, (chat) => {
      const printed = print(chat);
      assert.deepEqual(parse(printed), expectedRead(chat));
      assertRubyReads(printed, expectedRead(chat));
      assert.equal(mergeConflict(printed), undefined, printed);
      const appended = appendChatText(printed + "\n", chat);
      assert.equal(mergeConflict(appended), undefined, appended);
    }),
    { numRuns: 5000 },
  );
});

/** The messages as the parser reads them back, without a leading empty one added. */
function readBack(list: Message[]): Chat {
  return expectedRead(list).slice(expectedRead(list).length - list.length);
}

Deno.test("property: appending to a printed chat reads back as both lists, in the port and in Ruby", () => {
  fc.assert(
    fc.property(messages, messages, (before, added) => {
      const text = appendChatText(print(before) + "\n", added);
      const want = before.length === 0 ? expectedRead(added) : [
        ...expectedRead(before),
        ...readBack(added),
      ];
      assert.deepEqual(parse(text), want);
      assertRubyReads(text, want);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("property: appending to any chat-like text keeps its messages and adds the new ones", () => {
  fc.assert(
    fc.property(chatLikeText, messages, (existing, added) => {
      const old = parse(existing);
      // in a CRLF text a new content's line ends are CRLF, as the file's, where that reads
      // back; else LF, as before (R86-4)
      const eol = lineEndOf(existing);
      const got = parse(appendChatText(existing, added));
      const want = (eol: "\n" | "\r\n") =>
        added.length === 0 ? old : old.length === 0 ? expectedRead(added) : [
          ...old,
          ...readBack(added).map((m) => ({ ...m, content: withLineEnds(String(m.content), eol) })),
        ];
      if (eol === "\n" || !isDeepStrictEqual(got, want(eol))) assert.deepEqual(got, want("\n"));
    }),
    { numRuns: 5000 },
  );
});
