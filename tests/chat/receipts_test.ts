/**
 * `agent_meta` receipts (`provenance.md` §8): extraction, problems, job references.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "../../src/chat/parse.ts";
import { toolCalls } from "../../src/chat/tool_calls.ts";
import {
  agentMetaEvidence,
  agentMetaJobReferences,
  metaEvidence,
  type ReceiptProblem,
  receiptReferenceSuffix,
} from "../../src/chat/receipts.ts";

function chat(agentMeta: unknown, extra = ""): ReturnType<typeof parse> {
  const out = { name: "ask", content: "ok", id: "c1", agent_meta: agentMeta };
  return parse(
    `user: go\n\nfunction_call: {"name":"ask","arguments":{"agent":"W"},"id":"c1"}\n\n` +
      `function_call_output: ${JSON.stringify(out)}\n\n${extra}assistant: done\n`,
  );
}

Deno.test("valid entries carry addresses, call id, tool name and the raw message", () => {
  const c = chat([
    { role: "meta", content: "pt=10 tt=12 inference_id=w1" },
    { role: "meta", content: "job=Wf/ask/W" },
  ]);
  const ev = agentMetaEvidence(c, { source: "/w/p.chat" });
  assert.equal(ev.length, 2);
  assert.deepEqual(ev[0], {
    origin: "agent_meta",
    meta: { pt: 10, tt: 12, inference_id: "w1" },
    source: "/w/p.chat",
    outputAddress: ["/w/p.chat", 3],
    evidenceAddress: ["/w/p.chat", 3, "agent_meta", 0],
    callId: "c1",
    toolName: "ask",
    agentMetaIndex: 0,
    rawMessage: { role: "meta", content: "pt=10 tt=12 inference_id=w1" },
  });
  assert.deepEqual(agentMetaEvidence(c)[1]!.evidenceAddress, [3, "agent_meta", 1]);
  const refs = agentMetaJobReferences(c, { source: "/w/p.chat" });
  assert.deepEqual(refs.map((r) => [r.job, r.agentMetaIndex]), [["Wf/ask/W", 1]]);
});

Deno.test("problems in check order; bad entries are skipped, never reinterpreted", () => {
  const warnings: ReceiptProblem[] = [];
  const c = chat([
    "pt=1 tt=2",
    { role: "assistant", content: "pt=1 tt=2" },
    { role: "meta", content: 5 },
    { role: "meta", content: "no pairs" },
    { role: "meta", content: "pt=3 tt=4" },
  ]);
  const ev = agentMetaEvidence(c, { source: "/p", warnings });
  assert.deepEqual(ev.map((e) => e.agentMetaIndex), [4]);
  assert.deepEqual(warnings.map((w) => [w.reason, w.agentMetaIndex]), [
    ["not_a_hash", 0],
    ["invalid_role", 1],
    ["invalid_content", 2],
    ["unparseable_meta", 3],
  ]);
  assert.ok(
    warnings[0]!.message.startsWith(
      'agent_meta receipt not_a_hash in chat /p at output ["/p",3] (call c1, tool ask)',
    ),
  );
  assert.deepEqual(warnings[1]!.evidenceAddress, ["/p", 3, "agent_meta", 1]);
  assert.equal(agentMetaEvidence(c, { source: "/p" }).length, 1, "silent without warnings");
});

Deno.test("not_an_array once with null index; null/false still count as receipts", () => {
  for (const v of ["nope", null, false, { role: "meta" }]) {
    const warnings: ReceiptProblem[] = [];
    assert.deepEqual(agentMetaEvidence(chat(v), { source: "/p", warnings }), []);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.reason, "not_an_array");
    assert.equal(warnings[0]!.agentMetaIndex, null);
    assert.equal(warnings[0]!.evidenceAddress, null);
    assert.deepEqual(warnings[0]!.rawEntry, v);
  }
});

Deno.test("problem details name the kind with its article: an object, an array, a string, null", () => {
  const details = (v: unknown) => {
    const warnings: ReceiptProblem[] = [];
    agentMetaEvidence(chat(v), { source: "/p", warnings });
    return warnings.map((w) => w.detail);
  };
  assert.deepEqual(details({ role: "meta" }), ["agent_meta is an object, not an array"]);
  assert.deepEqual(details("x"), ["agent_meta is a string, not an array"]);
  assert.deepEqual(details(null), ["agent_meta is null, not an array"]);
  assert.deepEqual(details([[1], 2]), [
    "entry 0 is an array, not an object",
    "entry 1 is a number, not an object",
  ]);
  assert.deepEqual(details([{ role: "meta", content: {} }, { role: "meta" }]), [
    "entry 0 has an object content, not a string",
    "entry 1 has undefined content, not a string",
  ]);
});

Deno.test("problem messages end with the raw reference: the agent_meta value, the entry, or the job", () => {
  const cases: [unknown, string][] = [
    ["oops", " reference oops"],
    [7, " reference 7"],
    [{ role: "meta" }, ' reference {"role":"meta"}'],
    [[5], " reference 5"], // not_a_hash: the entry itself
    [null, ")"], // nil and false name nothing, as Ruby's `if reference`
    [false, ")"],
  ];
  for (const [v, end] of cases) {
    const warnings: ReceiptProblem[] = [];
    agentMetaEvidence(chat(v), { source: "/p", warnings });
    assert.equal(warnings.length, 1);
    assert.ok(
      warnings[0]!.message.endsWith(`(call c1, tool ask)${end === ")" ? "" : end}`),
      warnings[0]!.message,
    );
  }
  assert.equal(
    receiptReferenceSuffix({ reference: "Wf/ask/W", rawEntry: { role: "meta" } }),
    " reference Wf/ask/W",
  );
});

Deno.test("outputs without the key, unpaired outputs and raw text are not receipts", () => {
  const warnings: ReceiptProblem[] = [];
  const c = parse(
    'user: go\n\nfunction_call_output: {"name":"ask","content":"x","id":"u","agent_meta":"bad"}\n\n' +
      'function_call: {"name":"sh","arguments":{},"id":"s"}\n\n' +
      'function_call_output: {"name":"sh","content":"mentions agent_meta","id":"s"}\n',
  );
  assert.deepEqual(agentMetaEvidence(c, { warnings }), []);
  assert.deepEqual(warnings, [], "the unpaired output is ignored (Ruby parity)");
});

Deno.test("metaEvidence: local metas (lenient) first, then receipts", () => {
  const c = chat([{ role: "meta", content: "pt=1 tt=1 inference_id=r" }], "meta: hello\n\n");
  const ev = metaEvidence(c, { source: "/p" });
  assert.deepEqual(ev.map((e) => e.origin), ["chat_meta", "agent_meta"]);
  assert.deepEqual(ev[0]!.meta, {});
  assert.deepEqual((ev[0] as { metaAddress: unknown }).metaAddress, ["/p", 4]);
});

Deno.test("selective pairing equals pairing every call (property)", () => {
  const ids = fc.constantFrom("c1", "c2", "c/3", "7", 'q"4', "é5");
  const callArb = fc.record({ id: ids, key: fc.constantFrom("id", "call_id", "tool_call_id") });
  const outArb = fc.record({
    id: ids,
    receipt: fc.option(fc.constantFrom("pt=1 tt=2", "job=W/t/x", "bad"), { nil: null }),
    escape: fc.boolean(),
  });
  const msgArb = fc.oneof(
    callArb.map((c) => ({
      role: "function_call",
      content: JSON.stringify({ name: "ask", [c.key]: c.id === "7" ? 7 : c.id }),
    })),
    outArb.map((o) => {
      const env: Record<string, unknown> = { name: "ask", content: "x", id: o.id };
      if (o.receipt !== null) {
        env.agent_meta = o.receipt === "bad" ? "bad" : [{ role: "meta", content: o.receipt }];
      }
      let text = JSON.stringify(env);
      if (o.escape) text = text.replace(/[a-z]/, (ch) => "\\u00" + ch.charCodeAt(0).toString(16));
      return { role: "function_call_output", content: text };
    }),
    fc.constant({ role: "assistant", content: "mentions agent_meta c1" }),
  );
  fc.assert(
    fc.property(fc.array(msgArb, { maxLength: 12 }), (messages) => {
      const fast: ReceiptProblem[] = [];
      const full: ReceiptProblem[] = [];
      const a = agentMetaEvidence(messages, { source: "/p", warnings: fast });
      const b = agentMetaEvidence(messages, {
        source: "/p",
        warnings: full,
        calls: toolCalls(messages, "/p"),
      });
      assert.deepEqual(a, b);
      assert.deepEqual(fast, full);
    }),
    { numRuns: 500 },
  );
});
