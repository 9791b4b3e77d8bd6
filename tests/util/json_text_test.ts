/**
 * `jsonText` / `wellFormedJsonText` (R162-1): JSON.stringify's text with
 * each lone surrogate escape written U+FFFD, pairs and literal backslashes
 * kept; the same value back, its strings well-formed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { wellFormedDeep } from "../../src/util/code_points.ts";
import { jsonText, wellFormedJsonText } from "../../src/util/json_text.ts";

/** A lone surrogate escape in JSON text (an escaped backslash skipped first). */
const LONE = /\\(?:\\|u(d[89a-f][0-9a-f]{2}))/gi;
const hasLoneEscape = (t: string) => [...t.matchAll(LONE)].some((m) => m[1] !== undefined);

Deno.test("lone halves become U+FFFD, keys included; a pair and a literal \\ud800 stay", () => {
  const v = { "k\ud800": ["lone \ud83d and \ude00", "pair \ud83d\ude00", "text \\ud800"] };
  const t = jsonText(v);
  assert.equal(
    t,
    '{"k\ufffd":["lone \ufffd and \ufffd","pair \ud83d\ude00","text \\\\ud800"]}',
  );
  assert.deepEqual(JSON.parse(t), wellFormedDeep(v));
  assert.equal(jsonText({ a: "\ud800" }, 2), '{\n  "a": "\ufffd"\n}');
  assert.equal(jsonText(undefined), "null");
});

Deno.test("clean text is returned as it is", () => {
  const t = JSON.stringify({ a: "plain \ud83d\ude00", b: "\\u0041" });
  assert.equal(wellFormedJsonText(t), t);
});

Deno.test("any value: the same value with well-formed strings, and no lone escape in the text", () => {
  const str = fc.string({
    unit: fc.oneof(
      fc.constantFrom("\\", "u", "d", "8", "\ud800", "\udc00"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    ),
  });
  fc.assert(
    fc.property(
      fc.dictionary(str, fc.oneof(str, fc.array(str)), { noNullPrototype: true }),
      (v) => {
        const t = jsonText(v);
        assert.equal(hasLoneEscape(t), false, t);
        assert.deepEqual(JSON.parse(t), wellFormedDeep(v));
      },
    ),
  );
});
