import assert from "node:assert/strict";
import fc from "fast-check";
import { parse, parseWithLines } from "../../src/chat/parse.ts";

const lines = (text: string) => parseWithLines(text).lines;

Deno.test("header lines, text before the first header, and text after an inline header", () => {
  const text = [
    "intro text", // 1: user (no header)
    "system:", // 2
    "", // 3
    "You are x", // 4
    "", // 5
    "import: a.chat", // 6
    "continues system role", // 7
    "user:", // 8
    "", // 9
    "```", // 10
    "file: inside a fence", // 11
    "```", // 12
    "file: real.txt", // 13
  ].join("\n");
  assert.deepEqual(parse(text).map((m) => m.role), [
    "user",
    "system",
    "import",
    "system",
    "user",
    "file",
  ]);
  assert.deepEqual(lines(text), [1, 2, 6, 7, 8, 13]);
});

Deno.test("leading empty message, empty blocks dropped, kept empty clear (D8), CRLF", () => {
  assert.deepEqual(lines("user: hi"), [1, 1]);
  assert.deepEqual(lines("\n\nsystem:\n\nuser:\n\nq\nclear:\nuser: b"), [3, 5, 8, 9]);
  assert.deepEqual(lines("user:\r\n\r\nhi\r\nimport: x\r\n"), [1, 1, 4]);
  assert.deepEqual(lines(""), []);
});

Deno.test("blocks: xml, [[ ]], cmd output protect header-like lines", () => {
  const text = [
    "user:", // 1
    "<note>", // 2
    "file: protected", // 3
    "</note>", // 4
    "[[", // 5
    "task: protected", // 6
    "]]", // 7
    "sh:-- ls {{{", // 8
    "job: protected", // 9
    "sh:-- ls }}}", // 10
    "pdf: x.pdf", // 11
  ].join("\n");
  assert.deepEqual(parse(text).map((m) => m.role), ["user", "user", "pdf"]);
  assert.deepEqual(lines(text), [1, 1, 11]);
});

const lineArb = fc.oneof(
  fc.constantFrom(
    "user:",
    "system:",
    "assistant:",
    "clear:",
    "skip:",
    "clear_tools:",
    "import: a.chat",
    "file: b.txt",
    "previous_response_id: r1",
    "agent: helper",
    "```",
    "```js",
    "[[",
    "]]",
    "[[one]]",
    "sh:-- ls {{{",
    "sh:-- ls }}}",
    "<note>",
    "</note>",
    "<b>x</b> y",
    "\\user: escaped",
    "  user: indented",
    "",
    "   ",
    "text line",
    "todo: x",
    "user:\r",
  ),
  fc.string({ maxLength: 8 }),
);

Deno.test("property: the line replay always agrees with parse", () => {
  fc.assert(
    fc.property(fc.array(lineArb, { maxLength: 30 }), (ls) => {
      const text = ls.join("\n");
      const parsed = parse(text);
      const { chat, lines: got } = parseWithLines(text);
      assert.deepEqual(chat, parsed, "line tracking never changes the messages");
      assert.equal(got.length, parsed.length);
      got.forEach((n, i) => {
        assert.ok(n !== undefined, `no line for message ${i} of ${JSON.stringify(text)}`);
        assert.ok(n >= 1 && n <= ls.length);
      });
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: message i starts at line L iff the text before L parses to i messages", () => {
  // oracle: parsing only the lines before L yields exactly the messages before i (xml blocks
  // excluded: whether they protect depends on a closer *later* in the text, [DIVERGE D3])
  const noXml = lineArb.filter((l) => !l.includes("<"));
  fc.assert(
    fc.property(fc.array(noXml, { maxLength: 25 }), (ls) => {
      const text = ls.join("\n");
      const got = parseWithLines(text).lines;
      got.forEach((n, i) => {
        if (i === 1 && n === got[0]) return; // leading {user,""} quirk shares the first header line
        const before = parse(ls.slice(0, n! - 1).join("\n"));
        assert.equal(before.length, i, `message ${i} at line ${n} of ${JSON.stringify(text)}`);
      });
    }),
    { numRuns: 1000 },
  );
});
