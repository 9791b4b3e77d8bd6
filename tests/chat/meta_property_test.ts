/**
 * Property tests of the meta records (`provenance.md` §4): the parser's fast
 * scanners against the spec's pattern, number conversion, key removal, and
 * serializeMeta against its step-by-step oracle and through a round trip.
 * The example-based tests are in meta_test.ts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseMeta, serializeMeta } from "../../src/chat/mod.ts";
import { wellFormedDeep } from "../../src/util/code_points.ts";

// The spec's pattern (`provenance.md` §4.2): the reference the parser's scanners are tested against.
const S = "[ \\t\\n\\v\\f\\r]";
const META_PAIR = new RegExp(
  `([^ \\t\\n\\v\\f\\r=]+)=("(?:[^"\\\\]|\\\\[\\s\\S]|"(?!${S}+[^ \\t\\n\\v\\f\\r=]+=|${S}*$))*"|[\\s\\S]*?)(?=${S}+[^ \\t\\n\\v\\f\\r=]+=|${S}*$)`,
  "g",
);

/**
 * A meta line parsed by the spec's pattern, for any content: quoted values
 * unwrapped as Ruby's `parse_meta` does (`\x` is `x`, except before a line
 * feed), whole-string `INT`/`FLOAT` values made numbers (unsafe integers stay text).
 */
function parseMetaPattern(content: string): Record<string, string | number> {
  const unquote = (v: string) =>
    v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\([^\n])/g, "$1") : v;
  const numeric = (v: string) => {
    if (/^-?\d+$/.test(v)) return Number.isSafeInteger(Number(v)) ? Number(v) : v;
    return /^-?\d+\.\d+$/.test(v) ? Number(v) : v;
  };
  const out: Record<string, string | number> = {};
  META_PAIR.lastIndex = 0;
  for (let m = META_PAIR.exec(content); m !== null; m = META_PAIR.exec(content)) {
    out[m[1]!] = numeric(unquote(m[2]!));
  }
  return out;
}

const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/);
const nonNumeric = (s: string) => !/^-?\d+$/.test(s) && !/^-?\d+\.\d+$/.test(s);
const metaString = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      " ",
      "=",
      '"',
      "\\",
      "\n",
      "\r",
      "\t",
      "é",
      "🌍",
      "日",
      "a",
      "k=",
      "\u00a0",
      "\ud800",
      "\udc00",
    ),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 }),
  ),
  maxLength: 20,
});

Deno.test("property: serializeMeta → parseMeta round-trips (newlines → spaces)", () => {
  fc.assert(
    fc.property(
      fc.dictionary(key, fc.oneof(metaString, fc.integer(), fc.double({ noNaN: true })), {
        maxKeys: 6,
      }),
      (record) => {
        const expected: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(record)) {
          if (typeof v === "string") {
            const flat = v.replace(/\r\n|\r|\n/g, " ");
            const n = Number(flat);
            expected[k] = nonNumeric(flat) || (/^-?\d+$/.test(flat) && !Number.isSafeInteger(n))
              ? flat
              : n;
          } else if (Number.isSafeInteger(v) || /^-?\d+\.\d+$/.test(String(v))) {
            expected[k] = Object.is(v, -0) ? 0 : v;
          } else {
            expected[k] = String(v); // 2^53, 1e21, Infinity…: kept as text
          }
        }
        const line = serializeMeta(record);
        assert.ok(!line.includes("\n") && !line.includes("\r"), "one line");
        assert.deepEqual({ ...parseMeta(line) }, expected);
      },
    ),
    { numRuns: 1000 },
  );
});

Deno.test("property: parseMeta's scanners equal the spec's pattern (quoted and quote-free)", async () => {
  const { parseQuotedMeta, parseUnquotedMeta } = await import("../../src/chat/meta.ts");
  const piece = fc.constantFrom(
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\v",
    "\f",
    "=",
    "==",
    "a",
    "k=",
    "pt=",
    "x=1",
    "12",
    "-3",
    "1.5",
    "é",
    "\u00a0",
    "🌍",
    "\\",
    "_",
    "-",
    "a=b=c",
    '"',
    '\\"',
    '="',
    '" ',
    'r="x',
    '" b=',
  );
  fc.assert(
    fc.property(
      fc.array(fc.oneof(piece, fc.string({ maxLength: 4 })), { maxLength: 14 }),
      (parts) => {
        const text = parts.join("");
        assert.deepEqual(parseQuotedMeta(text), parseMetaPattern(text), JSON.stringify(text));
        const plain = text.replaceAll('"', "'");
        assert.deepEqual(parseUnquotedMeta(plain), parseMetaPattern(plain), JSON.stringify(plain));
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("property: the word fast path equals the spec's pattern on Scout-shaped lines", async () => {
  const { parseMeta, parseWordsMeta } = await import("../../src/chat/meta.ts");
  // Lines like Scout writes (`key=value` words, a final `reas="…"`), with the
  // odd word or separator that must send them to the general scanners.
  const word = fc.oneof(
    fc.tuple(
      fc.constantFrom("pt", "tt", "inference_id", "a", "__proto__", "x-y"),
      fc.oneof(
        fc.constantFrom(
          "",
          "0",
          "-0",
          "12",
          "-3",
          "1.5",
          "007",
          "9007199254740993",
          "a=b",
          "=",
          "é",
        ),
        fc.string({ maxLength: 5 }).filter((v) => !/[\s"]/.test(v)),
      ),
    ).map(([k, v]) => `${k}=${v}`),
    fc.constantFrom("=x", "==", "word", "\u00a0k=v", "k=\u00a0"),
  );
  const sep = fc.constantFrom(" ", " ", " ", "  ", "\t", "\n");
  const quoted = fc.oneof(
    fc.constant(""),
    fc.constantFrom(
      ' reas="a b=c"',
      ' reas="x \\" y"',
      ' reas="',
      ' r"="x"',
      ' ="x"',
      ' reas="a" b=1',
    ),
    fc.string({ maxLength: 6 }).map((v) => ` reas="${v}"`),
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(sep, word), { maxLength: 10 }),
      quoted,
      fc.constantFrom("", " ", "  "),
      (words, tail, lead) => {
        const text = lead + words.map(([s, w], i) => (i === 0 ? w : s + w)).join("") + tail;
        const fast = parseWordsMeta(text);
        if (fast !== null) assert.deepEqual(fast, parseMetaPattern(text), JSON.stringify(text));
        assert.deepEqual(parseMeta(text), parseMetaPattern(text), JSON.stringify(text));
      },
    ),
    { numRuns: 20_000 },
  );
  // It does take the common line.
  const line = "pt=10 ct=2 tt=12 inference_id=i-1 timestamp=2026-01-01T00:00:00Z " +
    'reas="a b=c"';
  assert.deepEqual(parseWordsMeta(line), parseMetaPattern(line));
});

Deno.test("property: values become numbers exactly when the spec's INT/FLOAT match", async () => {
  const { parseMeta } = await import("../../src/chat/meta.ts");
  const spec = (v: string): string | number => {
    if (/^-?\d+$/.test(v)) {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : v;
    }
    return /^-?\d+\.\d+$/.test(v) ? Number(v) : v;
  };
  const value = fc.string({
    unit: fc.constantFrom("0", "1", "7", "9", "-", ".", "e", "x", "+", "_", "٣"),
    maxLength: 22,
  });
  fc.assert(
    fc.property(value, (v) => {
      assert.deepEqual(parseMeta(`k=${v}`), v === "" ? { k: "" } : { k: spec(v) }, v);
    }),
    { numRuns: 50_000 },
  );
  for (
    const v of ["-0", "007", "9007199254740991", "9007199254740993", "1.50", "-2.0", "1.", ".5"]
  ) {
    assert.deepEqual(parseMeta(`k=${v}`), { k: spec(v) }, v);
  }
});

Deno.test("property: values become numbers exactly when they match -?\\d+ (safe) or -?\\d+\\.\\d+", () => {
  const INT = /^-?\d+$/;
  const FLOAT = /^-?\d+\.\d+$/;
  const expected = (v: string) => {
    if (INT.test(v)) return Number.isSafeInteger(Number(v)) ? Number(v) : v;
    return FLOAT.test(v) ? Number(v) : v;
  };
  const numberLike = fc.array(fc.constantFrom("0", "1", "9", "-", ".", "e", "a", "00"), {
    maxLength: 22,
  }).map((parts) => parts.join(""));
  const samples = ["9007199254740991", "9007199254740992", "123456789012345", "-0", "1.", ".5"];
  fc.assert(
    fc.property(fc.oneof(numberLike, fc.string(), fc.constantFrom(...samples)), (v) => {
      fc.pre(v !== "" && !/[\s="]/.test(v));
      assert.ok(Object.is(parseMeta(`k=${v}`).k, expected(v)), v);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("property: parseMeta(text, key) is parseMeta(text) without that key, same order", () => {
  const word = fc.constantFrom(
    "pt=1",
    "reas=x",
    'reas="a b=c"',
    "ct=2",
    "x=y",
    "a=",
    "=b",
    "k",
    "",
  );
  const text = fc.array(fc.oneof(word, fc.string({ maxLength: 6 })), { maxLength: 8 })
    .map((ws) => ws.join(" "));
  fc.assert(
    fc.property(text, fc.constantFrom("reas", "pt", "x"), (t, key) => {
      const all = parseMeta(t);
      const expected = Object.fromEntries(Object.entries(all).filter(([k]) => k !== key));
      const got = parseMeta(t, key);
      assert.deepEqual(got, expected);
      assert.deepEqual(Object.keys(got), Object.keys(expected));
    }),
    { numRuns: 3000 },
  );
});

/** serializeMeta as first written (provenance.md §4.1 step by step): the oracle of its fast form. */
function serializeMetaSpec(meta: Record<string, unknown>): string {
  const codePoints = (s: string) => [...s].length; // a lone surrogate is one code point
  const value = (v: unknown) => {
    if (v === null || v === undefined) return "";
    // an object's JSON with each lone surrogate as U+FFFD, as a UTF-8 writer has it (R162-1)
    let s = typeof v === "string"
      ? v
      : typeof v === "object"
      ? JSON.stringify(wellFormedDeep(v))
      : String(v);
    s = s.replace(/\r\n|\r|\n/g, " ");
    if (/[="\\]/.test(s) || /^[ \t\v\f]|[ \t\v\f]$/.test(s)) {
      return `"${s.replace(/[\\"]/g, (c) => "\\" + c)}"`;
    }
    return s;
  };
  return Object.entries(meta)
    .map(([k, v], i) => ({ k, v, i, len: typeof v === "string" ? codePoints(v) : 0 }))
    .sort((a, b) => a.len - b.len || a.i - b.i)
    .map(({ k, v }) => `${k}=${value(v)}`).join(" ");
}

Deno.test("property: serializeMeta writes what the step-by-step §4.1 rules write, byte for byte", () => {
  const anyValue = fc.oneof(
    metaString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.dictionary(key, metaString, { maxKeys: 2 }),
  );
  fc.assert(
    fc.property(fc.dictionary(key, anyValue, { maxKeys: 8 }), (record) => {
      assert.equal(serializeMeta(record), serializeMetaSpec(record));
    }),
    { numRuns: 2000 },
  );
});
