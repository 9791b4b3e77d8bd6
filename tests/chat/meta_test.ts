import assert from "node:assert/strict";
import fc from "fast-check";
import {
  addMeta,
  currentMeta,
  jobPaths,
  lastJob,
  meta,
  normalizeUsage,
  parseMeta,
  serializeMeta,
  toInt,
} from "../../src/chat/mod.ts";
import type { Chat } from "../../src/chat/mod.ts";

Deno.test("parseMeta: provenance.md §4.2 table", () => {
  const rows: [string, Record<string, unknown>][] = [
    ["pt=10 ct=5 tt=15 reas=some text here", { pt: 10, ct: 5, tt: 15, reas: "some text here" }],
    ['pt=100 reas="text total=48M prompt=47M end." ct=3', {
      pt: 100,
      reas: "text total=48M prompt=47M end.",
      ct: 3,
    }],
    ['pt=100 reas="Some ["/p"] inside."', { pt: 100, reas: 'Some ["/p"] inside.' }],
    ['a="x\\"y" b=2', { a: 'x"y', b: 2 }],
    ["a= b=2", { a: "", b: 2 }],
    ["pt=007 x=1.50 y=1e5 z=-3 w=+3", { pt: 7, x: 1.5, y: "1e5", z: -3, w: "+3" }],
    ["hello world pt=5", { pt: 5 }],
    ["no pairs here", {}],
    ["a=1 junk b=2", { a: "1 junk", b: 2 }],
    ["x==y", { x: "=y" }],
    ['reas="a" b', { reas: '"a" b' }],
    ['a="b c', { a: '"b c' }],
    ["inference_id=12345", { inference_id: 12345 }],
    ["a=abc\n12", { a: "abc\n12" }], // Ruby: 0 (line-anchored numeric test)
    ['pt=100 reas="a=b" ct=200', { pt: 100, reas: "a=b", ct: 200 }],
    ["a=1 a=2", { a: 2 }],
    ["", {}],
  ];
  for (const [input, expected] of rows) assert.deepEqual(parseMeta(input), expected, input);
  assert.equal(parseMeta("id=123456789012345678901").id, "123456789012345678901");
});

Deno.test("serializeMeta: inference.md §4.5 machine-checked vector", () => {
  const record = {
    pt: 12,
    ct: 8,
    tt: 20,
    cct: 4,
    rt: 0,
    inference_id: "0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
    provider_response_id: "resp_mock_001",
    pt_s: 12,
    ct_s: 8,
    tt_s: 20,
    cct_s: 4,
    rt_s: 0,
    pt_c: 12,
    ct_c: 8,
    tt_c: 20,
    cct_c: 4,
    cwt_c: 0,
    rt_c: 0,
    reas: 'I think a=b so "quoted" stuff',
    timestamp: "2025-01-01T00:00:00.000Z",
  };
  assert.equal(
    serializeMeta(record),
    'pt=12 ct=8 tt=20 cct=4 rt=0 pt_s=12 ct_s=8 tt_s=20 cct_s=4 rt_s=0 pt_c=12 ct_c=8 tt_c=20 cct_c=4 cwt_c=0 rt_c=0 provider_response_id=resp_mock_001 timestamp=2025-01-01T00:00:00.000Z reas="I think a=b so \\"quoted\\" stuff" inference_id=0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
  );
  assert.deepEqual(parseMeta(serializeMeta(record)), record);
});

Deno.test("serializeMeta: value lengths in code points; a lone surrogate counts one", () => {
  assert.equal(serializeMeta({ b: "\ud800\ud800\ud800", a: "xy" }), "a=xy b=\ud800\ud800\ud800");
  assert.equal(serializeMeta({ b: "🌍🌍🌍", a: "xy" }), "a=xy b=🌍🌍🌍");
  assert.equal(serializeMeta({ b: "🌍🌍", a: "xy" }), "b=🌍🌍 a=xy");
});

Deno.test("serializeMeta TS-FIX: quotes, backslashes, outer spaces, newlines, null", () => {
  assert.equal(serializeMeta({ a: 'say "hi"' }), 'a="say \\"hi\\""');
  assert.equal(serializeMeta({ a: "back\\slash" }), 'a="back\\\\slash"');
  assert.equal(serializeMeta({ a: " padded " }), 'a=" padded "');
  assert.equal(serializeMeta({ reas: "line1\nline2\r\nline3" }), "reas=line1 line2 line3");
  assert.equal(serializeMeta({ a: null, b: undefined, c: 1 }), "a= b= c=1");
  assert.equal(serializeMeta({}), "");
});

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

Deno.test("toInt §4.4", () => {
  assert.equal(toInt(5), 5);
  assert.equal(toInt(5.9), 5);
  assert.equal(toInt(-5.9), -5);
  assert.equal(toInt("12abc"), 12);
  assert.equal(toInt("1e5"), 1);
  assert.equal(toInt(" +1_000"), 1000);
  assert.equal(toInt("x"), 0);
  assert.equal(toInt(null), 0);
  assert.equal(toInt(Number.NaN), 0);
});

Deno.test("normalizeUsage: inference.md §4.2 vectors", () => {
  assert.deepEqual(normalizeUsage({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }), {
    pt: 11,
    ct: 7,
    tt: 18,
  });
  assert.deepEqual(
    normalizeUsage({
      input_tokens: 9,
      output_tokens: 174,
      total_tokens: 183,
      input_tokens_details: { cache_write_tokens: 0, cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 128 },
    }),
    { pt: 9, ct: 174, tt: 183, cct: 0, cwt: 0, rt: 128 },
  );
  assert.deepEqual(
    normalizeUsage({
      input_tokens: 15,
      output_tokens: 9,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    }),
    { pt: 15, ct: 9, tt: 24, cct: 0, cwt: 0 },
    "anthropic: tt = pt + ct; 0 counts as present",
  );
  assert.deepEqual(normalizeUsage({ prompt_tokens: 3 }), { pt: 3 });
  assert.deepEqual(normalizeUsage(null), {});
  assert.deepEqual(normalizeUsage({}), {});
});

Deno.test("currentMeta/meta: last meta with the _c keys of the last meta having any", () => {
  const chat: Chat = [
    { role: "meta", content: "pt=2 ct=3 tt=5 pt_c=2 ct_c=3 tt_c=5" },
    { role: "assistant", content: "a" },
    { role: "meta", content: "pt=7 tt=7 pt_c=9 ct_c=3 tt_c=12" },
    { role: "assistant", content: "b" },
    { role: "meta", content: "job=Wf/task/x" },
  ];
  assert.deepEqual(currentMeta(chat), { job: "Wf/task/x", pt_c: 9, ct_c: 3, tt_c: 12 });
  assert.deepEqual(meta(chat), currentMeta(chat));
  assert.deepEqual(currentMeta([{ role: "user", content: "x" }]), {});
});

Deno.test("addMeta: sets a key in the last meta (copy) or appends one", () => {
  const first = { role: "meta", content: "pt=1" };
  const chat: Chat = [first, { role: "user", content: "q" }];
  addMeta(chat, "job", "Wf/task/a b");
  assert.deepEqual(chat[0], { role: "meta", content: "pt=1 job=Wf/task/a b" });
  assert.equal(first.content, "pt=1", "the old message object is not modified");
  const plain: Chat = [{ role: "user", content: "q" }];
  assert.equal(addMeta(plain, "job", "x"), plain);
  assert.deepEqual(plain[1], { role: "meta", content: "job=x" });
});

Deno.test("jobPaths and lastJob", () => {
  const chat: Chat = [
    { role: "meta", content: "job=A/t/1" },
    { role: "meta", content: "pt=3 job=" },
    { role: "meta", content: "job=B/t/2" },
    { role: "meta", content: "job=A/t/1" },
  ];
  assert.deepEqual(jobPaths(chat), ["A/t/1", "B/t/2"]);
  assert.equal(lastJob(chat), "A/t/1");
  assert.equal(lastJob([...chat, { role: "meta", content: "pt=3" }]), null);
  assert.equal(lastJob([]), null);
  assert.deepEqual(
    jobPaths([{ role: "job", content: "A/t/9" }]),
    [],
    "a job: role is not a marker",
  );
});

Deno.test("property: parseMeta's scanners equal the spec's pattern (quoted and quote-free)", async () => {
  const { parseMetaPattern, parseQuotedMeta, parseUnquotedMeta } = await import(
    "../../src/chat/meta.ts"
  );
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
  const { parseMeta, parseMetaPattern, parseWordsMeta } = await import("../../src/chat/meta.ts");
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
    let s = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
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
