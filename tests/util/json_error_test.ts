/**
 * `jsonSyntaxProblem`: the scanner that says where JSON text goes wrong the
 * same in every runtime (R81-6). It must agree with `JSON.parse` on what is
 * JSON, and name V8's position for what is not.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { jsonErrorParts, jsonSyntaxProblem } from "../../src/util/json_error.ts";

const parses = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

Deno.test("jsonSyntaxProblem agrees with JSON.parse on short texts of JSON's characters", () => {
  const char = fc.constantFrom(...'{}[]",:0123456789-+.eEtrufalsn \n\t\\u/abx'.split(""));
  fc.assert(
    fc.property(fc.array(char, { maxLength: 16 }).map((a) => a.join("")), (s) => {
      assert.equal(jsonSyntaxProblem(s) === null, parses(s), JSON.stringify(s));
    }),
    { numRuns: 100_000 },
  );
});

Deno.test("jsonSyntaxProblem accepts any JSON text and finds the error cut into it", () => {
  fc.assert(fc.property(fc.json(), (s) => jsonSyntaxProblem(s) === null), { numRuns: 5_000 });
  fc.assert(
    fc.property(fc.json(), fc.nat(), (s, n) => {
      const cut = s.slice(0, n % (s.length + 1));
      assert.equal(jsonSyntaxProblem(cut) === null, parses(cut), JSON.stringify(cut));
    }),
    { numRuns: 5_000 },
  );
});

Deno.test("jsonSyntaxProblem: the reason, line and column V8 gives (its position 63 = line 2 column 32)", () => {
  const text = '[{"role":"user","content":"a"},\n  {"role":"user","content":"b",}]';
  assert.deepEqual(jsonSyntaxProblem(text), {
    reason: 'expected a double-quoted property name (unexpected character "}")',
    offset: 63,
    line: 2,
    column: 32,
  });
  assert.equal(jsonSyntaxProblem("")?.reason, "unexpected end of input");
  assert.equal(
    jsonSyntaxProblem('{"a" 1}')?.reason,
    "expected ':' after property name (unexpected character \"1\")",
  );
  assert.equal(
    jsonSyntaxProblem("[1 2]")?.reason,
    "expected ',' or ']' after array element (unexpected character \"2\")",
  );
  assert.equal(jsonSyntaxProblem('"a\nb"')?.line, 1);
  assert.equal(jsonSyntaxProblem('"a\nb"')?.reason, "bad control character in string literal");
  assert.equal(jsonSyntaxProblem("1 x")?.column, 3);
  assert.equal(jsonSyntaxProblem("[".repeat(100_000))?.reason, "unexpected end of input");
});

Deno.test("jsonErrorParts: the scanner's words and line; the runtime's message when the syntax is right", () => {
  assert.deepEqual(jsonErrorParts("[1,]", new SyntaxError("whatever the runtime says")), {
    text: 'unexpected character "]" at line 1, column 4',
    line: 1,
  });
  assert.deepEqual(jsonErrorParts("[]", new RangeError("too deep")), { text: "too deep" });
});
