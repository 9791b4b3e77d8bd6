import assert from "node:assert/strict";
import { normalizeUsage, parseMeta, serializeMeta } from "../../src/chat/meta.ts";
import { newSession, nextMeta } from "../../src/llm/meta_record.ts";

const T0 = new Date("2025-01-01T00:00:00.000Z");

Deno.test("meta layout reproduces the machine-checked serialization (§4.5)", () => {
  const m = nextMeta({
    usage: {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 8,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 20,
    },
    previous: {},
    session: newSession(),
    inferenceId: "0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
    providerResponseId: "resp_mock_001",
    reasoning: 'I think a=b so "quoted" stuff',
    timestamp: T0,
  });
  assert.equal(
    serializeMeta(m),
    'pt=12 ct=8 tt=20 cct=4 rt=0 pt_s=12 ct_s=8 tt_s=20 cct_s=4 rt_s=0 pt_c=12 ct_c=8 tt_c=20 cct_c=4 cwt_c=0 rt_c=0 provider_response_id=resp_mock_001 timestamp=2025-01-01T00:00:00.000Z reas="I think a=b so \\"quoted\\" stuff" inference_id=0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
  );
});

Deno.test("chat totals accumulate from the previous meta (§4.3 vector); _s only for reported keys", () => {
  const session = newSession();
  const first = nextMeta({
    usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
    previous: {},
    session,
    inferenceId: "a",
    timestamp: T0,
  });
  const second = nextMeta({
    usage: { prompt_tokens: 7, total_tokens: 7 },
    previous: first,
    session,
    inferenceId: "b",
    timestamp: T0,
  });
  assert.equal(second.pt, 7);
  assert.equal(second.ct, undefined);
  assert.equal(second.pt_c, 9);
  assert.equal(second.ct_c, 3);
  assert.equal(second.tt_c, 12);
  assert.equal(second.cwt_c, 0);
  assert.equal(second.pt_s, 9);
  assert.equal(second.ct_s, undefined);
  // the meta round-trips through the chat codec
  assert.deepEqual(parseMeta(serializeMeta(second)), second);
});

Deno.test("missing usage → no token keys, all six _c written, inference id and timestamp present", () => {
  const m = nextMeta({
    usage: undefined,
    previous: { pt_c: "4" },
    session: newSession(),
    inferenceId: "x",
    timestamp: T0,
  });
  assert.deepEqual(Object.keys(m), [
    "inference_id",
    "pt_c",
    "ct_c",
    "tt_c",
    "cct_c",
    "cwt_c",
    "rt_c",
    "timestamp",
  ]);
  assert.equal(m.pt_c, 4);
});

Deno.test("reasoning newlines become spaces", () => {
  const m = nextMeta({
    usage: {},
    previous: {},
    session: newSession(),
    inferenceId: "x",
    reasoning: "a\nb\r\nc",
    timestamp: T0,
  });
  assert.equal(m.reas, "a b c");
});

Deno.test("usage normalisation vectors from §4.2 (through the shared codec)", () => {
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
      input_tokens: 30,
      output_tokens: 14,
      cache_read_input_tokens: 2,
      cache_creation_input_tokens: 1,
    }),
    { pt: 30, ct: 14, tt: 44, cct: 2, cwt: 1 },
  );
});
