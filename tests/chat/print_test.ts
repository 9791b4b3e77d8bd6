import assert from "node:assert/strict";
import fc from "fast-check";
import { escapeContent, parse, print, printMessage } from "../../src/chat/mod.ts";
import type { Chat } from "../../src/chat/mod.ts";
import { isScoutError } from "../../src/errors.ts";
import { ROUND_TRIP_ROWS } from "./spec_roundtrip_rows.ts";

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
    if (row.portError) {
      assert.throws(() => print(row.input), (e) => isScoutError(e, row.portError as "chat_print"));
      return;
    }
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
  assert.equal(printMessage({ role: "user", content: null }), "user:\n\n[[\n]]", "D27");
  assert.equal(printMessage({ role: "user", content: undefined }), "user:\n\n[[\n]]");
  assert.equal(printMessage({ role: "user", content: " " }), "user:\n\n[[\n]]");
  assert.equal(printMessage({ role: "clear", content: "" }), "clear:", "D8 roles stay bare");
  assert.equal(printMessage({ role: "user", content: 42 }), "user:\n\n42");
  assert.equal(printMessage({ role: "user", content: false }), "user:\n\nfalse");
  assert.equal(printMessage({ role: "meta", content: "pt=1 ct=2" }), "meta: pt=1 ct=2");
  assert.equal(
    printMessage({ role: "function_call", content: { name: "f" } }),
    'function_call:\n\n{"name":"f"}',
    "structured content prints in block form, even for INLINE roles",
  );
  assert.equal(printMessage({ role: "meta", content: "a\nb" }), "meta:\n\na\nb", "D2: block form");
  assert.equal(
    printMessage({ role: "function_call", content: "user: x" }),
    "function_call: user: x",
    "inline content is never escaped",
  );
  assert.equal(printMessage({ role: "user", content: "hi", extra: 1 }), "user:\n\nhi");
});

Deno.test("escapeContent D1/D26: lines the parser would claim outside blocks get one backslash", () => {
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
  assert.equal(
    escapeContent("[[\nuser: in\n]]\nuser: out"),
    "\\[[\n\\user: in\n]]\n\\user: out",
    "the parser rewrites [[ blocks: never left as one",
  );
  assert.equal(escapeContent("[[x]]\nuser: out"), "\\[[x]]\n\\user: out", "D4 one-line [[x]]");
  assert.equal(
    escapeContent("s:-- ls {{{\nuser: in\ns:-- ls }}}\nuser: out"),
    "\\s:--\\ ls {{{\n\\user: in\n\\s:-- ls }}}\n\\user: out",
    "nor command blocks: the escape goes after the :-- (a leading one would not break it)",
  );
  assert.equal(
    escapeContent("<a>\n```\nuser: x\n```\n</a>\n<b>\n[[\n</b>"),
    "\\<a>\n```\nuser: x\n```\n</a>\n\\<b>\n\\[[\n</b>",
    "xml blocks holding a fence or [[ line are not kept (Ruby would drop or act on it)",
  );
  assert.equal(
    escapeContent("```\nx:-- y {{{\n```\nuser: out"),
    "\\```\n\\x:--\\ y {{{\n\\```\n\\user: out",
    "nor fences holding a command opener",
  );
  assert.equal(
    escapeContent("<a>\n<b x='1'>\nx </b></a>\n<b>bold</b> text"),
    "\\<a>\n<b x='1'>\nx </b></a>\n\\<b>bold</b> text",
    "a failed lookahead goes back: lines it passed are still read (found at 200k runs)",
  );
});

Deno.test("print→parse: what is normalised, and what used to be lost now reads back", () => {
  const rt = (chat: Chat) => parse(print(chat)).slice(1);
  // Empty or null content is kept as an empty message (D27; the D8 roles print bare).
  assert.deepEqual(rt([{ role: "assistant", content: null }, { role: "user", content: "x" }]), [
    { role: "assistant", content: "" },
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
  assert.deepEqual(rt([{ role: "user", content: [[1, 2]] }]), [
    { role: "user", content: "[[1,2]]" },
  ]);
  assert.deepEqual(rt([{ role: "user", content: 7 }]), [{ role: "user", content: "7" }]);
  assert.deepEqual(rt([{ role: "user", content: "  x  " }]), [{ role: "user", content: "x" }]);
  // [[ ]] and {{{ }}} block syntax in content is kept as written (D26).
  for (const content of ["[[\nkeep\n]]", "s:-- ls {{{\nout\ns:-- ls }}}"]) {
    assert.deepEqual(rt([{ role: "user", content }]), [{ role: "user", content }]);
  }
  // An xml element left open in one message no longer swallows the next.
  const open = [{ role: "user", content: "<a>\nx" }, { role: "assistant", content: "</a>" }];
  assert.deepEqual(rt(open), open);
  // Nor does an unbalanced fence.
  const fence = [{ role: "user", content: "```\nx" }, { role: "assistant", content: "y" }];
  assert.deepEqual(rt(fence), fence);
  // Roles outside [a-z0-9_]+ are rejected (D28) instead of merging into the previous message.
  assert.throws(
    () => print([{ role: "user", content: "a" }, { role: "User", content: "b" }]),
    /Cannot print message 1: role "User" is not a header word/,
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

Deno.test("print: xml openers each cut short by a fence search for a closer once, not once each (R74-6)", () => {
  // each "<a>" line's block is cut by the fence after it; its closer "</a>" is at the very end.
  // Each opener used to search the body up to that closer again: quadratic (80k lines: 18 s).
  // Counted, not timed: the searches for "</" made while printing.
  const n = 2000;
  const content = "<a>\n```\n".repeat(n) + "</a>";
  const indexOf = String.prototype.indexOf;
  let searches = 0;
  String.prototype.indexOf = function (this: string, needle: string, from?: number) {
    if (needle === "</") searches++;
    return indexOf.call(this, needle, from);
  };
  let out: string;
  try {
    out = print([{ role: "user", content }]);
  } finally {
    String.prototype.indexOf = indexOf;
  }
  assert.ok(searches < 20, `${searches} searches for "</"`);
  // the openers outside the fences escaped, the ones inside kept, as before
  assert.ok(out.endsWith("\n" + "\\<a>\n```\n<a>\n```\n".repeat(n / 2) + "</a>"), out.slice(0, 80));
  assert.deepEqual(parse(out).at(-1), { role: "user", content });
});
