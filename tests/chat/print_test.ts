import assert from "node:assert/strict";
import fc from "fast-check";
import { escapeContent, parse, print, printMessage } from "../../src/chat/mod.ts";
import type { Chat } from "../../src/chat/mod.ts";
import { ROUND_TRIP_ROWS } from "./spec_rows.ts";

const EMPTY = { role: "user", content: "" };

Deno.test("print §11.2 examples", () => {
  assert.equal(
    print([{ role: "system", content: "you are a robot" }, { role: "user", content: "hi" }]),
    "\nsystem:\n\nyou are a robot\n\nuser:\n\nhi",
  );
  assert.equal(
    print([{ role: "option", content: "model gpt" }, { role: "user", content: "next" }]),
    "\noption: model gpt\n\nuser:\n\nnext",
  );
  assert.equal(print([]), "\n");
});

for (const row of ROUND_TRIP_ROWS) {
  const label = row.diverge ? `${row.diverge}, port value` : "Ruby value";
  Deno.test(`print→parse ${row.id} (${label}): ${row.shows}`, () => {
    const got = parse(print(row.input));
    if (row.port) {
      assert.deepEqual(got, row.port);
      assert.notDeepEqual(got, row.ruby, `${row.id}: the Ruby result is the defect ${row.diverge}`);
    } else {
      assert.deepEqual(got, row.ruby);
    }
  });
}

Deno.test("printMessage §3.1 rules", () => {
  assert.equal(printMessage({ role: "user", content: { a: [1, "x"] } }), 'user:\n\n{"a":[1,"x"]}');
  assert.equal(printMessage({ role: "user", content: [1, 2] }), "user:\n\n[1,2]");
  assert.equal(printMessage({ role: "user", content: null }), "user:");
  assert.equal(printMessage({ role: "user", content: undefined }), "user:");
  assert.equal(printMessage({ role: "user", content: "" }), "user:");
  assert.equal(printMessage({ role: "user", content: 42 }), "user:\n\n42");
  assert.equal(printMessage({ role: "user", content: false }), "user:\n\nfalse");
  assert.equal(printMessage({ role: "meta", content: "pt=1 ct=2" }), "meta: pt=1 ct=2");
  assert.equal(printMessage({ role: "meta", content: "a\nb" }), "meta:\n\na\nb", "D2: block form");
  assert.equal(
    printMessage({ role: "function_call", content: "user: x" }),
    "function_call: user: x",
    "inline content is never escaped",
  );
  assert.equal(printMessage({ role: "user", content: "hi", extra: 1 }), "user:\n\nhi");
});

Deno.test("escapeContent D1: header-shaped lines outside blocks get one backslash", () => {
  assert.equal(escapeContent("plain text"), "plain text");
  assert.equal(
    escapeContent("a\nuser: x\n\\user: y\nnote:x\n12: t\n  user: indented\nlast:"),
    "a\n\\user: x\n\\\\user: y\n\\note:x\n\\12: t\n  user: indented\n\\last:",
  );
  assert.equal(
    escapeContent("```\nuser: in\n```\nuser: out"),
    "```\nuser: in\n```\n\\user: out",
  );
  assert.equal(
    escapeContent("<a>\nuser: in\n</a>\nuser: out"),
    "<a>\nuser: in\n</a>\n\\user: out",
  );
  assert.equal(
    escapeContent("<a>\nuser: no closer"),
    "<a>\n\\user: no closer",
    "no closer in the content: not a block",
  );
  assert.equal(escapeContent("[[\nuser: in\n]]\nuser: out"), "[[\nuser: in\n]]\n\\user: out");
  assert.equal(escapeContent("[[x]]\nuser: out"), "[[x]]\n\\user: out", "D4 one-line [[x]]");
  assert.equal(
    escapeContent("s:-- ls {{{\nuser: in\ns:-- ls }}}\nuser: out"),
    "s:-- ls {{{\nuser: in\ns:-- ls }}}\n\\user: out",
  );
});

Deno.test("print→parse: known non-round-trips are pinned (§3.2/§3.3)", () => {
  const rt = (chat: Chat) => parse(print(chat)).slice(1);
  // Empty or null content vanishes, except the D8 roles.
  assert.deepEqual(rt([{ role: "assistant", content: null }, { role: "user", content: "x" }]), [
    { role: "user", content: "x" },
  ]);
  assert.deepEqual(
    rt([{ role: "clear", content: "" }, { role: "clear_tools", content: null }]),
    [{ role: "clear", content: "" }, { role: "clear_tools", content: "" }],
  );
  // Objects and numbers come back as text; outer whitespace is trimmed.
  assert.deepEqual(rt([{ role: "user", content: { a: 1 } }]), [
    { role: "user", content: '{"a":1}' },
  ]);
  assert.deepEqual(rt([{ role: "user", content: 7 }]), [{ role: "user", content: "7" }]);
  assert.deepEqual(rt([{ role: "user", content: "  x  " }]), [{ role: "user", content: "x" }]);
  // [[ ]] and {{{ }}} block syntax in content is rewritten.
  assert.deepEqual(rt([{ role: "user", content: "[[\nkeep\n]]" }]), [
    { role: "user", content: "keep" },
  ]);
  assert.deepEqual(rt([{ role: "user", content: "s:-- ls {{{\nout\ns:-- ls }}}" }]), [
    { role: "user", content: '<cmd_output cmd="ls">\nout\n</cmd_output>' },
  ]);
  // An xml element left open in one message swallows the next up to its closer.
  assert.deepEqual(
    rt([{ role: "user", content: "<a>\nx" }, { role: "assistant", content: "</a>" }]),
    [{ role: "user", content: "<a>\nx\n\nassistant:\n\n</a>" }],
  );
  // An unbalanced fence swallows the rest.
  assert.deepEqual(
    rt([{ role: "user", content: "```\nx" }, { role: "assistant", content: "y" }]),
    [{ role: "user", content: "```\nx\n\nassistant:\n\ny" }],
  );
  // Roles outside [a-z0-9_]+ merge into the previous message.
  assert.deepEqual(
    parse(print([{ role: "user", content: "a" }, { role: "User", content: "b" }])),
    [EMPTY, { role: "user", content: "a\n\nUser:\n\nb" }],
  );
});

const role = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
const inlineRole = fc.constantFrom(
  "option",
  "meta",
  "function_call",
  "function_call_output",
  "previous_response_id",
);
const textLine = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 20 }).filter((s) => !s.includes("\n")),
  fc.constantFrom(
    "user: looks like a header",
    "\\user: escaped",
    "\\\\x: twice",
    "note:x",
    "http://example.com",
    "12:30",
    "a_1: b",
    "last:",
    "  user: indented",
    "Note: capital",
    "<b>bold</b> text",
    "</x> stray closer",
    "# heading",
    "",
    "\r",
    "x\r",
    "user:\r",
    "\0",
    "é ü 🌍",
  ),
);
const lines = fc.array(textLine, { minLength: 1, maxLength: 5 });
const block = fc.oneof(
  { weight: 4, arbitrary: lines },
  lines.map((ls) => ["```ts", ...ls, "```"]),
  fc.tuple(fc.constantFrom("a", "note", "file", "données"), lines).map((
    [tag, ls],
  ) => [`<${tag} x="1">`, ...ls, `</${tag}>`]),
);
/** Trimmed, non-empty content whose blocks are balanced within the message. */
const content = fc.array(block, { minLength: 1, maxLength: 4 })
  .map((bs) => bs.flat().join("\n").replace(/^[\s\0]+|[\s\0]+$/g, ""))
  .filter((c) => c !== "" && !/^[ \t\n\v\f\r\0]|[ \t\n\v\f\r\0]$/.test(c));

Deno.test("property §3.3: print→parse is exact for [a-z0-9_]+ roles and trimmed balanced content", () => {
  const message = fc.oneof(
    fc.record({ role, content }),
    fc.record({
      role: inlineRole,
      content: content.filter((c) => !c.includes("\n") && !c.includes("\r")),
    }),
  );
  fc.assert(
    fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), (generated) => {
      const chat = generated.map((m) => ({ ...m }));
      assert.deepEqual(parse(print(chat)), [EMPTY, ...chat]);
    }),
    { numRuns: 800 },
  );
});
