import assert from "node:assert/strict";
import { normalizeUsage, parseMeta, serializeMeta } from "../../src/chat/meta.ts";
import {
  chatTotalsBase,
  newSession,
  nextMeta,
  shiftChatTotals,
} from "../../src/llm/meta_record.ts";

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

Deno.test("meta records name who answered: model=, backend=, endpoint= after Ruby's keys; old records still read", async () => {
  const { ask } = await import("../../src/llm/ask.ts");
  const { startProviderServer } = await import("../support/provider_server.ts");
  const { tempDir } = await import("../support/cli.ts");
  const { parseMeta } = await import("../../src/chat/meta.ts");
  await using home = await tempDir();
  await using srv = await startProviderServer();
  await Deno.mkdir(`${home.path}/etc/AI`, { recursive: true });
  await Deno.writeTextFile(
    `${home.path}/etc/AI/loop.yaml`,
    `backend: openai\nurl: ${srv.url}\nmodel: gpt-test\n`,
  );
  srv.script({ text: "hi", usage: { pt: 3, ct: 1 } });
  const r = await ask([{ role: "user", content: "hello" }], {
    endpoint: "loop",
    persist: false,
    env: { SCOUT_HOME: home.path, OPENAI_API_KEY: "sk-x" },
  });
  const line = String(r.messages[0]!.content);
  const meta = parseMeta(line);
  assert.equal(meta.model, "gpt-test");
  assert.equal(meta.backend, "openai");
  assert.equal(meta.endpoint, "loop");
  // Ruby's keys keep their order; the new ones are extra keys (Ruby's reader ignores them)
  assert.match(line, /^pt=3 ct=1 tt=4 .*inference_id=/);
  assert.doesNotMatch(line, /sk-x/);
  // without an endpoint, no endpoint key
  srv.script({ text: "hi" });
  const r2 = await ask([{ role: "user", content: "hello again" }], {
    backend: "openai",
    url: srv.url,
    model: "m2",
    persist: false,
    env: { SCOUT_HOME: home.path, OPENAI_API_KEY: "sk-x" },
  });
  const m2 = parseMeta(String(r2.messages[0]!.content));
  assert.equal(m2.model, "m2");
  assert.equal(m2.endpoint, undefined);
  // a record written before these keys reads as it did
  assert.deepEqual(parseMeta("pt=5 ct=2 tt=7 inference_id=x1"), {
    pt: 5,
    ct: 2,
    tt: 7,
    inference_id: "x1",
  });
});

Deno.test("shiftChatTotals moves each _c, keeps the rest byte for byte, and leaves quoted text alone (R101-4)", () => {
  const m = nextMeta({
    usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    previous: { pt_c: 10, ct_c: 4, tt_c: 14 },
    session: newSession(),
    inferenceId: "id-1",
    reasoning: "so pt_c=1 and tt_c=2",
    timestamp: T0,
  });
  const text = serializeMeta(m);
  assert.deepEqual(chatTotalsBase(parseMeta(text)), {
    pt: 10,
    ct: 4,
    tt: 14,
    cct: 0,
    cwt: 0,
    rt: 0,
  });
  const moved = shiftChatTotals(text, { pt: 100, ct: 50, tt: 150, cct: 0, cwt: 1, rt: 0 });
  assert.equal(
    moved,
    text.replace("pt_c=17", "pt_c=117").replace("ct_c=6", "ct_c=56").replace("tt_c=23", "tt_c=173")
      .replace("cwt_c=0", "cwt_c=1"),
  );
  assert.equal(parseMeta(moved).reas, "so pt_c=1 and tt_c=2");
  assert.equal(chatTotalsBase(parseMeta("job=W/ask/x")), null);
});
