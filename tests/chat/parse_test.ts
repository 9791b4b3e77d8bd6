import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "../../src/chat/mod.ts";
import { PARSE_ROWS } from "./spec_rows.ts";
import { chatLikeText } from "../support/chat_like_text.ts";

for (const row of PARSE_ROWS) {
  const label = row.diverge ? `${row.diverge}, port value` : "Ruby value";
  Deno.test(`parse ${row.id} (${label}): ${row.shows}`, () => {
    const got = parse(row.input);
    if (row.port) {
      assert.deepEqual(got, row.port);
      assert.notDeepEqual(got, row.ruby, `${row.id}: the Ruby result is the defect ${row.diverge}`);
    } else {
      assert.deepEqual(got, row.ruby);
    }
  });
}

Deno.test("parse: every DIVERGE row the lead listed is tagged, and only those", () => {
  const tagged = PARSE_ROWS.filter((r) => r.diverge).map((r) => `${r.id}:${r.diverge}`);
  assert.deepEqual(tagged, [
    "P10:D8",
    "P12:D1",
    "P21:D3",
    "P22:D3",
    "P26:D4",
    "P28:D5",
    "P29:D5",
    "P30:D6",
  ]);
});

Deno.test("parse with an initial role", () => {
  assert.deepEqual(parse("user: a", "system"), [
    { role: "system", content: "" },
    { role: "user", content: "a" },
  ]);
  assert.deepEqual(parse("hello", "system"), [{ role: "system", content: "hello" }]);
});

Deno.test("parse: trailing newlines and blank-only text (Ruby split semantics, D6)", () => {
  assert.deepEqual(parse("\n\n\n"), []);
  assert.deepEqual(parse("user:\n\n"), [{ role: "user", content: "" }]);
  assert.deepEqual(parse("   \n\t"), [], "D6: Ruby gives [{user,''}]");
  assert.deepEqual(parse("hi\n\n\n"), [{ role: "user", content: "hi" }]);
});

Deno.test("parse D8: bare clear/clear_tools/skip blocks survive, others are dropped", () => {
  assert.deepEqual(parse("clear:\n\nuser: b"), [
    { role: "user", content: "" },
    { role: "clear", content: "" },
    { role: "user", content: "b" },
  ]);
  assert.deepEqual(parse("user: a\nclear_tools:"), [
    { role: "user", content: "" },
    { role: "user", content: "a" },
    { role: "clear_tools", content: "" },
  ]);
  assert.deepEqual(parse("user: a\nskip:\n  \nsystem:\n\nuser: b"), [
    { role: "user", content: "" },
    { role: "user", content: "a" },
    { role: "skip", content: "" },
    { role: "user", content: "b" },
  ]);
});

Deno.test("parse D4: [[ ]] and {{{ }}} are separate modes", () => {
  // Ruby: `]]` closes a {{{ block (and `}}}` a [[ block).
  assert.deepEqual(parse("user:\n\nx:-- ls {{{\n]]\nassistant: still inside\nx:-- ls }}}"), [
    { role: "user", content: "" },
    {
      role: "user",
      content: '<cmd_output cmd="ls">\n]]\nassistant: still inside\n</cmd_output>',
    },
  ]);
  assert.deepEqual(parse("user:\n\n[[\nx:-- a }}}\nassistant: inside\n]]\nafter"), [
    { role: "user", content: "" },
    { role: "user", content: "x:-- a }}}\nassistant: inside\nafter" },
  ]);
});

Deno.test("parse D5: inside a block only its own closer is special", () => {
  assert.deepEqual(parse("user:\n\n<doc>\n[[\nassistant: in doc\n</doc>\nassistant: out"), [
    { role: "user", content: "" },
    { role: "user", content: "<doc>\n[[\nassistant: in doc\n</doc>" },
    { role: "assistant", content: "out" },
  ]);
  assert.deepEqual(parse("user:\n\n```\nx:-- ls {{{\n```\nassistant: out"), [
    { role: "user", content: "" },
    { role: "user", content: "```\nx:-- ls {{{\n```" },
    { role: "assistant", content: "out" },
  ]);
  assert.deepEqual(parse("user:\n\n[[\n```\nassistant: in\n]]\nassistant: out"), [
    { role: "user", content: "" },
    { role: "user", content: "```\nassistant: in" },
    { role: "assistant", content: "out" },
  ]);
});

Deno.test("parse: cmd markers (row 4/5) details", () => {
  assert.deepEqual(parse('a\nsh:-- echo "x" {{{ trailing\nout\nsh:-- echo }}} tail\nb'), [
    { role: "user", content: 'a\n<cmd_output cmd="echo "x"">\nout\n</cmd_output>\nb' },
  ]);
  // Leading whitespace: the marker opens the block but the line is kept as is.
  assert.deepEqual(parse("a\n  sh:-- ls {{{\nuser: inside\n  sh:-- ls }}}"), [
    { role: "user", content: "a\n  sh:-- ls {{{\nuser: inside\n</cmd_output>" },
  ]);
  // `$1`-like text in the command is not a replacement pattern.
  assert.deepEqual(parse("sh:-- echo $1 $& {{{\nx\nsh:-- e }}}"), [
    { role: "user", content: '<cmd_output cmd="echo $1 $&">\nx\n</cmd_output>' },
  ]);
});

Deno.test("parse: xml details (D3, nesting, unicode tags, attributes)", () => {
  assert.deepEqual(parse("<données a='1'>\nuser: x\n</données>\nuser: y"), [
    { role: "user", content: "<données a='1'>\nuser: x\n</données>" },
    { role: "user", content: "y" },
  ]);
  assert.deepEqual(parse("<a>\nx\n</a> trailing\nuser: y"), [
    { role: "user", content: "<a>\nx\n</a> trailing" },
    { role: "user", content: "y" },
  ]);
  assert.deepEqual(parse("<a><b>\nuser: x\n</b>\n</a>"), [
    { role: "user", content: "<a><b>\nuser: x\n</b>\n</a>" },
  ], "the tag is the first one on the line; a different closer does not close");
  assert.deepEqual(parse("<br/>\nuser: y\n</br>"), [
    { role: "user", content: "<br/>" },
    { role: "user", content: "y" },
    { role: "user", content: "</br>" },
  ], "<br/> is not an opening tag");
});

Deno.test("parse: escapes (row 9, D1)", () => {
  assert.deepEqual(parse("\\\\\\x: y"), [{ role: "user", content: "\\\\x: y" }]);
  assert.deepEqual(parse("```\n\\user: in fence\n```"), [
    { role: "user", content: "```\n\\user: in fence\n```" },
  ], "nothing is unescaped inside blocks");
  assert.deepEqual(parse("\\Note: x"), [{ role: "user", content: "\\Note: x" }]);
});

Deno.test("parse: CRLF files", () => {
  assert.deepEqual(parse("system:\r\n\r\nBe brief.\r\nTwo lines.\r\n\r\nuser: hi\r\n"), [
    { role: "user", content: "" },
    { role: "system", content: "Be brief.\r\nTwo lines." },
    { role: "user", content: "hi" },
  ]);
  assert.deepEqual(parse("user:\r\n\r\n```\r\nassistant: in\r\n```\r\n"), [
    { role: "user", content: "" },
    { role: "user", content: "```\r\nassistant: in\r\n```" },
  ]);
  assert.deepEqual(parse("user:\r\n\r\n<a>\r\nassistant: in\r\n</a>\r\n"), [
    { role: "user", content: "" },
    { role: "user", content: "<a>\r\nassistant: in\r\n</a>" },
  ]);
});

Deno.test("parse: NUL bytes are content; NUL counts as space for trimming (Ruby strip)", () => {
  assert.deepEqual(parse("user:\n\n\0a\0b\0"), [
    { role: "user", content: "" },
    { role: "user", content: "a\0b" },
  ]);
  assert.deepEqual(parse("us\0er: x"), [{ role: "user", content: "us\0er: x" }]);
  assert.deepEqual(parse("user:\0"), [{ role: "user", content: "" }]);
});

Deno.test("parse: unicode content, U+FFFD and non-ASCII whitespace are kept", () => {
  assert.deepEqual(parse("user:\n\n\u00a0héllo 🌍 \uFFFD\u2003"), [
    { role: "user", content: "" },
    { role: "user", content: "\u00a0héllo 🌍 \uFFFD\u2003" },
  ]);
  assert.deepEqual(parse("rôle: x"), [{ role: "user", content: "rôle: x" }]);
});

Deno.test("parse: unterminated blocks run to the end of the text", () => {
  for (const open of ["```", "[[", "sh:-- x {{{"]) {
    const chat = parse(`user:\n\n${open}\nassistant: y`);
    assert.equal(chat.length, 2, open);
    assert.match(String(chat[1]!.content), /assistant: y$/);
  }
});

Deno.test("property: parse never throws and yields {role, content: string} records", () => {
  fc.assert(
    fc.property(chatLikeText, (t) => {
      const chat = parse(t);
      for (const m of chat) {
        assert.equal(typeof m.role, "string");
        assert.equal(typeof m.content, "string");
        assert.equal(Object.keys(m).length, 2);
      }
    }),
    { numRuns: 1500 },
  );
});

Deno.test("property: the linear-time cmd-close patterns match exactly the spec's regexes", async () => {
  const { CMD_CLOSE } = await import("../../src/chat/parse.ts");
  const { isBlank, rubyStrip } = await import("../../src/chat/text.ts");
  // The spec's regexes with Ruby's `.` (anything but \n; JS `.` also stops at \r).
  const spec = /^[^\n]*:--[^\n]* \}\}\}/;
  const specReplace = /^[^\n]*:-- [^\n]* \}\}\}[^\n]*/;
  const piece = fc.constantFrom(":", "-", " ", "}", "x", ":--", " }}}", ":-- ", "\r", "é");
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 14 }).map((p) => p.join("")), (line) => {
      assert.equal(CMD_CLOSE.test(line), spec.test(line));
      const chat = parse(`s:-- c {{{\n${line}\nafter`);
      const expected = spec.test(rubyStrip(line))
        ? [line.replace(specReplace, "</cmd_output>")].filter((l) => !isBlank(l))
        : [line];
      assert.equal(
        String(chat[0]!.content),
        rubyStrip(['<cmd_output cmd="c">', ...expected, "after"].join("\n")),
      );
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: the position-based parser reads text exactly as the line-by-line reference", async () => {
  const { referenceParse } = await import("../support/parse_reference.ts");
  const { parseWithLines } = await import("../../src/chat/parse.ts");
  fc.assert(
    fc.property(
      chatLikeText,
      fc.constantFrom("user", "system"),
      (t, role) => {
        const got = parseWithLines(t, role);
        assert.deepEqual(got, referenceParse(t, role));
      },
    ),
    { numRuns: 5000 },
  );
});

Deno.test("parse D26: escaped fences, [[, tags and command openers lose one backslash outside blocks", () => {
  assert.deepEqual(
    parse("user:\n\n\\```ts\n  \\[[x]]\n\\<a>\nx\n</a>\n\\sh:--\\ ls {{{\nuser: real"),
    [
      { role: "user", content: "" },
      { role: "user", content: "```ts\n  [[x]]\n<a>\nx\n</a>\nsh:-- ls {{{" },
      { role: "user", content: "real" },
    ],
  );
  // Before D26 these lines kept their backslash, and `\sh:-- ls {{{` is still a command
  // opener (the leading backslash is part of `\S*`), as in Ruby.
  assert.deepEqual(parse("\\sh:-- ls {{{\nx\nsh:-- ls }}}"), [
    { role: "user", content: '<cmd_output cmd="ls">\nx\n</cmd_output>' },
  ]);
  // Inside blocks nothing is unescaped; `\\` keeps one.
  assert.deepEqual(parse("```\n\\```\n\\[[\n```\n\\\\```"), [
    { role: "user", content: "```\n\\```\n\\[[\n```\n\\```" },
  ]);
  // A header-shaped `word:--\ … {{{` stays a header (row 8 comes first).
  assert.deepEqual(parse("sh:--\\ ls {{{"), [
    { role: "user", content: "" },
    { role: "sh", content: "--\\ ls {{{" },
  ]);
});

Deno.test("parse D27: a block whose body is only an empty [[ ]] is an empty message", () => {
  assert.deepEqual(parse("system:\n\n[[\n]]\n\nuser: hi"), [
    { role: "user", content: "" },
    { role: "system", content: "" },
    { role: "user", content: "hi" },
  ]);
  assert.deepEqual(parse("user: a\nassistant:\n\n[[\n]]"), [
    { role: "user", content: "" },
    { role: "user", content: "a" },
    { role: "assistant", content: "" },
  ]);
  // Hand-written files without the marker read as before: the empty block is dropped.
  assert.deepEqual(parse("system:\n\nuser: hi"), [
    { role: "user", content: "" },
    { role: "user", content: "hi" },
  ]);
  // Only right after a block header, and only when nothing else is in the body.
  assert.deepEqual(parse("[[\n]]\nuser: a\n[[\n]]"), [
    { role: "user", content: "" },
    { role: "user", content: "a" },
  ]);
  assert.deepEqual(parse("note:\n\n[[\nx\n]]"), [
    { role: "user", content: "" },
    { role: "note", content: "x" },
  ]);
});
