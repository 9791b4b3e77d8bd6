import assert from "node:assert/strict";
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
    // Ruby's unwrapping (R80-11): a lone `"` starts and ends with `"` (→ empty);
    // `\x` → `x` except before a line feed (Ruby's `.` without `m`)
    [' reas="', { reas: "" }],
    ['k=" z=1', { k: "", z: 1 }],
    ['k="a\\\nb" z=1', { k: "a\\\nb", z: 1 }],
    ['k="a\\\rb" z=1', { k: "a\rb", z: 1 }],
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
  // a lone `"` is quoted (Ruby writes it bare, and reads `reas="` as empty):
  // Ruby and this port read `reas="\""` as `"` (R80-11)
  assert.equal(serializeMeta({ reas: '"' }), 'reas="\\""');
  assert.deepEqual(parseMeta(serializeMeta({ reas: '"', pt: 1 })), { pt: 1, reas: '"' });
  assert.equal(serializeMeta({ reas: "line1\nline2\r\nline3" }), "reas=line1 line2 line3");
  assert.equal(serializeMeta({ a: null, b: undefined, c: 1 }), "a= b= c=1");
  assert.equal(serializeMeta({}), "");
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
