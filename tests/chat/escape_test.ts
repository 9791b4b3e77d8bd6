import assert from "node:assert/strict";
import fc from "fast-check";
import { escapePoints, isEscapedLine, unescapeLine } from "../../src/chat/escape.ts";
import { CMD_OPEN, XML_OPEN } from "../../src/chat/parse.ts";
import { isHeaderLine, rubyStrip } from "../../src/chat/text.ts";

/** `line` as the printer writes it: a backslash at each of its {@link escapePoints} (`print_guard.ts`). */
function escapedLine(line: string): string {
  let out = "";
  let at = 0;
  for (const p of escapePoints(line)) {
    out += line.slice(at, p) + "\\";
    at = p;
  }
  return out + line.slice(at);
}

Deno.test("escape D26: one backslash at the lead point and/or after a command's :--", () => {
  const cases: [string, string][] = [
    ["user: x", "\\user: x"],
    ["\\user: x", "\\\\user: x"],
    ["```", "\\```"],
    ["  ```ts", "  \\```ts"],
    ["\\```", "\\\\```"],
    ["[[", "\\[["],
    [" [[x]]", " \\[[x]]"],
    ["<a>", "\\<a>"],
    ["<b x='1'>y</b>", "\\<b x='1'>y</b>"],
    ["sh:-- ls {{{", "\\sh:--\\ ls {{{"],
    ["Sh:-- ls {{{", "Sh:--\\ ls {{{"],
    [":-- x {{{", ":--\\ x {{{"],
    ["sh:--\\ ls {{{", "\\sh:--\\\\ ls {{{"],
    ["<a>:-- z {{{", "\\<a>:--\\ z {{{"],
  ];
  for (const [line, escaped] of cases) {
    assert.equal(escapedLine(line), escaped, line);
    assert.equal(unescapeLine(escaped), line, escaped);
    assert.ok(isEscapedLine(escaped));
  }
  for (const plain of ["plain", "  user: x", "Note: x", "</a>", "<br/>", "x ```", "A:--b {{{"]) {
    assert.equal(unescapeLine(plain), null, plain);
    assert.equal(unescapeLine("\\" + plain), null, "\\" + plain);
  }
});

const piece = fc.constantFrom(
  "\\",
  "`",
  "```",
  "[[",
  "<",
  ">",
  "a",
  "user",
  ":",
  ":--",
  " ",
  "\t",
  "\r",
  "\0",
  "{{{",
  " {{{",
  "</a>",
  "<a x='1'>",
  "é",
);
const line = fc.array(piece, { maxLength: 10 }).map((p) => p.join(""));

Deno.test("property: unescapeLine(escapedLine(l)) is l, and an escaped line is no syntax in either parser", () => {
  fc.assert(
    fc.property(line, (l) => {
      const e = escapedLine(l);
      if (e === l) return;
      assert.equal(unescapeLine(e), l);
      const s = rubyStrip(e);
      assert.ok(!s.startsWith("```") && !s.startsWith("[["), e);
      assert.ok(!CMD_OPEN.test(s) && !XML_OPEN.test(s) && !isHeaderLine(e), e);
    }),
    { numRuns: 20_000 },
  );
});

Deno.test("property: the command escape point matches the spec-shaped regular expression", () => {
  const shaped = /^[^ \t\n\v\f\r]*:--\\* [^\n]* \{\{\{/;
  fc.assert(
    fc.property(line, (l) => {
      const s = rubyStrip(l);
      const e = escapedLine(l);
      // A command-shaped line gets a backslash after its first word's :--.
      assert.equal(shaped.test(s), /^[^ \t\n\v\f\r]*:--\\+ [^\n]* \{\{\{/.test(rubyStrip(e)), l);
      if (CMD_OPEN.test(s)) assert.notEqual(e, l);
    }),
    { numRuns: 20_000 },
  );
});

Deno.test("escapedLine/unescapeLine: column-0 merge-conflict markers get the lead escape; indented or longer runs do not (R95-2)", () => {
  for (
    const line of ["<<<<<<< HEAD", "<<<<<<<", "=======", "||||||| base", ">>>>>>> x", "=======\r"]
  ) {
    assert.equal(escapedLine(line), "\\" + line);
    assert.equal(unescapeLine("\\" + line), line);
    assert.equal(unescapeLine("\\\\" + line), "\\" + line);
    assert.equal(escapedLine("\\" + line), "\\\\" + line);
  }
  for (const line of ["  =======", "========", "<<<<<<<<", "<<<<<<<x", "======= x", "a ======="]) {
    assert.equal(escapedLine(line), line);
    assert.equal(unescapeLine("\\" + line), null);
  }
});
