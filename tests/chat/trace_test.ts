/**
 * Response tracing (`provenance.md` §6, §11 test 22) and local token totals.
 */
import assert from "node:assert/strict";
import { parse } from "../../src/chat/parse.ts";
import { directEntries, tokenTotals, traceChats, traceChatSources } from "../../src/chat/trace.ts";

Deno.test("22: a meta covers the messages after it; addresses are kept", () => {
  const p = parse(
    "user: q\n\nmeta: pt=1 tt=2 reas=thinking inference_id=a\n\nassistant: a\n\nuser: next\n",
  );
  const [e] = traceChatSources([["/w/p.chat", p]]);
  assert.deepEqual(e!.metaAddress, ["/w/p.chat", 2]);
  assert.deepEqual(e!.messageAddresses, [["/w/p.chat", 3]]);
  assert.equal(e!.orphan, false);
  assert.equal(e!.inferenceId, "a");
  assert.equal(e!.deduplication, "inference_id");
  assert.equal(e!.lineageId, e!.id);
  assert.deepEqual(e!.meta, { pt: 1, tt: 2, inference_id: "a" }, "reas is dropped");
  assert.equal(e!.messages.length, 1);
});

Deno.test("22: consecutive metas and a final meta are orphans", () => {
  const c = parse("user: q\n\nmeta: pt=1\n\nmeta: pt=2\n\nassistant: a\n\nmeta: pt=3\n");
  const entries = traceChats([c]);
  assert.deepEqual(entries.map((e) => [e.meta.pt, e.orphan]), [[1, true], [2, false], [3, true]]);
});

Deno.test("22: one meta over five tool/assistant messages is one segment; user closes it", () => {
  const c = parse(
    "user: q\n\nmeta: pt=9 tt=9\n\n" +
      'function_call: {"name":"a","arguments":{},"id":"1"}\n\n' +
      'function_call_output: {"name":"a","content":"x","id":"1"}\n\n' +
      'function_call: {"name":"b","arguments":{},"id":"2"}\n\n' +
      'function_call_output: {"name":"b","content":"y","id":"2"}\n\n' +
      "assistant: done\n\nuser: more\n\nassistant: not covered\n",
  );
  const entries = traceChats([c]);
  assert.equal(entries.length, 1);
  assert.deepEqual(entries[0]!.messageAddresses, [3, 4, 5, 6, 7]);
});

Deno.test("dedup: first occurrence wins across chats; legacy metas dedup by lineage", () => {
  const a = parse("user: q\n\nmeta: pt=7 ct=3 tt=10\n\nassistant: a\n");
  const b = parse("user: other\n\nmeta: pt=7 ct=3 tt=10\n\nassistant: a\n");
  assert.equal(traceChats([a, a]).length, 1);
  assert.equal(traceChats([a, b]).length, 2, "different history, different lineage");
  const [first] = traceChatSources([["/a", a], ["/b", a]]);
  assert.deepEqual(first!.metaAddress, ["/a", 2]);
  assert.equal(first!.deduplication, "legacy_lineage");
  // an empty inference_id is absent (not a shared key)
  const e1 = parse("user: 1\n\nmeta: pt=1 inference_id=\n");
  const e2 = parse("user: 2\n\nmeta: pt=1 inference_id=\n");
  assert.equal(traceChats([e1, e2]).length, 2);
});

Deno.test("21: direct entries exclude job= markers; totals sum all six keys", () => {
  const c = parse(
    "user: q\n\nmeta: pt=10 ct=2 tt=12 cct=4 cwt=3 rt=1 inference_id=a\n\nassistant: a\n\n" +
      "meta: job=Wf/t/x\n\nassistant: b\n\nmeta: reas=only\n\nmeta: tt=0 inference_id=z\n",
  );
  assert.equal(directEntries([c]).length, 2, "job marker and token-less meta are not direct");
  assert.deepEqual(tokenTotals([c, c]), { pt: 10, ct: 2, tt: 12, cct: 4, cwt: 3, rt: 1 });
  assert.deepEqual(tokenTotals([]), { pt: 0, ct: 0, tt: 0, cct: 0, cwt: 0, rt: 0 });
});
