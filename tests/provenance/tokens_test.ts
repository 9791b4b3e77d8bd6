/**
 * Accounting acceptance tests (`provenance.md` §11, tests 19–30) on real temp dirs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { parse } from "../../src/chat/parse.ts";
import { traceChats } from "../../src/chat/trace.ts";
import { toolCalls, toolCallStatus } from "../../src/chat/tool_calls.ts";
import {
  type ConflictCounts,
  provenanceTokenEvents,
  provenanceTokenTotals,
  type TokenWarning,
} from "../../src/provenance/tokens.ts";
import * as library from "../../mod.ts";
import type { TokenScope } from "../../src/provenance/evidence.ts";
import type { TraverseOptions } from "../../src/provenance/types.ts";
import { entry, fixtureB, fixtureC, meta, mkJob, rc, tmp, tok, write } from "./support.ts";

function opts(dir: string, extra: TraverseOptions = {}): TraverseOptions {
  return { cwd: dir, jobRoots: [join(dir, "jobs")], ...extra };
}

const T = (pt: number, ct: number, tt: number, more: Partial<Record<string, number>> = {}) => ({
  pt,
  ct,
  tt,
  cct: 0,
  cwt: 0,
  rt: 0,
  ...more,
});

Deno.test("19: one inference_id in two chats counts once; distinct ids count twice", async () => {
  await using d = await tmp();
  const log = "user: q\n\nmeta: pt=3 ct=1 tt=4 inference_id=g1\n\nassistant: a\n";
  const j = mkJob(join(d.path, "jobs/Wf/t/J"), [], { "a.chat": log, "b.chat": log });
  const o = opts(d.path, { rootType: "job" });
  const events = provenanceTokenEvents(j, o);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.evidence.length, 2);
  assert.equal(events[0]!.deduplication, "inference_id");
  const twice = "user: q\n\nmeta: pt=3 ct=1 tt=4 inference_id=g2\n\nassistant: a\n";
  write(j + ".files/log/c.chat", twice.replace("g2", "g3"));
  write(j + ".files/log/d.chat", twice);
  assert.deepEqual(provenanceTokenTotals(j, o), T(9, 3, 12));
  const x = parse(log);
  assert.equal(traceChats([x, x]).length, 1);
  assert.equal(traceChats([x, x], false).length, 2);
});

Deno.test("20: legacy lineage merges copies; legacy receipts stay one event each", async () => {
  await using d = await tmp();
  const legacy = "user: q\n\nmeta: pt=7 ct=3 tt=10\n\nassistant: a\n";
  const j = mkJob(join(d.path, "jobs/Wf/t/J"), [], { "a.chat": legacy, "b.chat": legacy });
  const events = provenanceTokenEvents(j, opts(d.path, { rootType: "job" }));
  assert.equal(events.length, 1);
  assert.equal(events[0]!.deduplication, "legacy_lineage");
  assert.equal(events[0]!.identity[0], "lineage");

  const two = write(
    join(d.path, "two.chat"),
    rc({ a1: [entry("pt=5 tt=6")], a2: [entry("pt=5 tt=6")] }),
  );
  const ev2 = provenanceTokenEvents(two, opts(d.path));
  assert.deepEqual(ev2.map((e) => e.deduplication), ["receipt_unresolved", "receipt_unresolved"]);
  assert.deepEqual(ev2.map((e) => e.status), ["legacy_unresolved", "legacy_unresolved"]);
  const t2 = provenanceTokenTotals(two, opts(d.path));
  assert.equal(t2.pt, 10);
  assert.equal(t2.tt, 12);

  mkJob(join(d.path, "jobs/Wf/ask/W"), [], {
    "agent.chat": "user: q\n\nmeta: pt=8 tt=9\n\nassistant: a\n",
  });
  const mixed = write(
    join(d.path, "mixed.chat"),
    rc({ a1: [entry("pt=8 tt=9")] }, [meta("job=Wf/ask/W")]),
  );
  const t3 = provenanceTokenTotals(mixed, opts(d.path));
  assert.equal(provenanceTokenEvents(mixed, opts(d.path)).length, 2);
  assert.equal(t3.pt, 16);
  assert.equal(t3.tt, 18);
});

Deno.test("21: job= metas excluded, cct and rt summed, checkpoints survive a later marker", async () => {
  await using d = await tmp();
  const chat = write(
    join(d.path, "c.chat"),
    "user: q\n\nmeta: pt=10 ct=2 tt=12 cct=4 rt=1 pt_c=10 inference_id=a\n\nassistant: a\n\n" +
      "meta: job=Wf/t/Gone pt=99\n\nassistant: projected\n",
  );
  const warnings: TokenWarning[] = [];
  const totals = provenanceTokenTotals(chat, {
    ...opts(d.path),
    warnings,
    onError: () => {},
  });
  assert.deepEqual(totals, T(10, 2, 12, { cct: 4, rt: 1 }));
  const { metaCheckpoint } = await import("../../src/chat/project.ts");
  assert.equal(metaCheckpoint(parse(Deno.readTextFileSync(chat)))!.pt_c, 10);
});

Deno.test("24: fixture A — receipts only", async () => {
  await using d = await tmp();
  const parent = write(
    join(d.path, "parent.chat"),
    rc({ a1: [entry(tok("w1", 100, 50, 150)), entry(tok("w2", 20, 10, 30))] }, [
      meta(tok("p1", 60, 40, 100)),
    ]),
  );
  const o = opts(d.path);
  const scope = (s: TokenScope) => provenanceTokenTotals(parent, { ...o, scope: s });
  assert.deepEqual(scope("deduplicated_total"), T(180, 100, 280));
  assert.deepEqual(scope("chat_evidence"), T(60, 40, 100));
  assert.deepEqual(scope("receipt_evidence"), T(120, 60, 180));
  assert.deepEqual(scope("receipt_only"), T(120, 60, 180));
  assert.deepEqual(provenanceTokenTotals(parent, { ...o, follow: ["job"] }), T(180, 100, 280));
  const events = provenanceTokenEvents(parent, o);
  const receipts = events.flatMap((e) => e.evidence).filter((e) => e.origin === "agent_meta");
  assert.deepEqual(receipts.map((e) => e.origin === "agent_meta" && e.evidenceAddress), [
    [parent, 3, "agent_meta", 0],
    [parent, 3, "agent_meta", 1],
  ]);
  assert.deepEqual(receipts.map((e) => [e.callId, e.toolName]), [["a1", "ask"], ["a1", "ask"]]);
});

Deno.test("25: fixture B — receipts merge with the saved child log", async () => {
  await using d = await tmp();
  const parent = fixtureB(d.path);
  const o = opts(d.path);
  const events = provenanceTokenEvents(parent, o);
  assert.deepEqual(events.map((e) => e.inferenceId), ["p1", "w1", "w2", "w3"]);
  assert.deepEqual(events.map((e) => e.evidence.length), [1, 2, 2, 1]);
  assert.deepEqual(events[1]!.evidence.map((e) => e.origin), ["chat_meta", "agent_meta"]);
  const sum = events.reduce((a, e) => a + e.tokens.tt, 0);
  assert.equal(sum, 290);
  assert.deepEqual(provenanceTokenTotals(parent, o), T(185, 105, 290));
  assert.deepEqual(provenanceTokenTotals(parent, { ...o, scope: "receipt_only" }), T(0, 0, 0));
});

Deno.test("26: fixture C aggregate", async () => {
  await using d = await tmp();
  const { parent } = fixtureC(d.path);
  assert.deepEqual(provenanceTokenTotals(parent, opts(d.path)), T(160, 70, 232));
});

function conflictStore(dir: string, logMeta: string, receiptMetas: string[]): string {
  mkJob(join(dir, "jobs/Wf/ask/F"), [], {
    "agent.chat": `user: q\n\nmeta: ${logMeta}\n\nassistant: a\n`,
  });
  return write(
    join(dir, "p.chat"),
    rc({ c1: receiptMetas.map(entry) }, [meta("job=Wf/ask/F")]),
  );
}

Deno.test("27: conflicts, provider ids and incomplete evidence", async (t) => {
  await using d = await tmp();
  const o = opts(d.path);
  await t.step("tt disputed: canonical chat copy, warning fields and values", () => {
    const p = conflictStore(d.path, "pt=10 tt=99 inference_id=f1", ["pt=10 tt=15 inference_id=f1"]);
    const warnings: TokenWarning[] = [];
    const events = provenanceTokenEvents(p, { ...o, warnings });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.tokens.tt, 99);
    assert.equal(events[0]!.conflict, true);
    assert.equal(events[0]!.status, "conflict");
    assert.equal(warnings.length, 1);
    const w = warnings[0] as { reason: string; fields: string[]; values: unknown[] };
    assert.equal(w.reason, "identity_conflict");
    assert.deepEqual(w.fields, ["tt"]);
    assert.deepEqual(w.values, [99, 15]);
    assert.throws(
      () => provenanceTokenEvents(p, { ...o, strict: true }),
      (e: unknown) =>
        isScoutError(e, "identity_conflict") &&
        e.message.includes("conflict on inference_id=f1: disputed tt"),
    );
    // without warnings: flagged only
    const flagged = provenanceTokenEvents(p, o);
    assert.equal(flagged[0]!.conflict, true);
    const counts: Partial<ConflictCounts> = {};
    assert.equal(provenanceTokenTotals(p, { ...o, conflicts: counts }).tt, 99);
    assert.deepEqual(counts, { events: 1, incompleteEvidenceEvents: 0, authoritative: false });
  });
  await t.step("two provider ids conflict on provider_response_id", () => {
    const p = conflictStore(d.path, "pt=1 tt=2 inference_id=g1 provider_response_id=ra", [
      "pt=1 tt=2 inference_id=g1 provider_response_id=rb",
    ]);
    const [e] = provenanceTokenEvents(p, o);
    assert.deepEqual(e!.conflictFields, ["provider_response_id"]);
  });
  await t.step("a shared provider id without inference ids is one event", () => {
    const p = conflictStore(d.path, "pt=1 tt=2 provider_response_id=rx", [
      "pt=1 tt=2 provider_response_id=rx",
    ]);
    const events = provenanceTokenEvents(p, o);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.identity, ["provider_response_id", "rx"]);
    assert.equal(events[0]!.deduplication, "provider_response_id");
  });
  await t.step("a provider id in one copy only is incomplete evidence, not a conflict", () => {
    const p = conflictStore(d.path, "pt=1 tt=2 inference_id=h1 provider_response_id=rz", [
      "pt=1 tt=2 inference_id=h1",
    ]);
    const warnings: TokenWarning[] = [];
    const [e] = provenanceTokenEvents(p, { ...o, warnings, strict: true });
    assert.equal(e!.conflict, false);
    assert.equal(e!.incompleteEvidence, true);
    assert.equal(e!.status, "incomplete_evidence");
    assert.deepEqual(warnings, []);
  });
});

Deno.test("28: a truncated output whose receipt survives is counted; the call failed", async () => {
  await using d = await tmp();
  const out = {
    name: "ask",
    content: JSON.stringify({ exception: "Output truncated", partial: "…" }),
    id: "t1c",
    error: "truncated",
    agent_meta: [entry(tok("t1", 250, 50, 300))],
  };
  const chat = write(
    join(d.path, "t.chat"),
    'user: go\n\nfunction_call: {"name":"ask","arguments":{},"id":"t1c"}\n\n' +
      `function_call_output: ${JSON.stringify(out)}\n\nassistant: hmm\n`,
  );
  const warnings: TokenWarning[] = [];
  assert.equal(provenanceTokenTotals(chat, { ...opts(d.path), warnings }).tt, 300);
  assert.deepEqual(warnings, []);
  const [call] = toolCalls(parse(Deno.readTextFileSync(chat)));
  assert.equal(toolCallStatus(call!).success, false);
});

Deno.test("29: the chat copy is canonical; identical receipts are one event", async () => {
  await using d = await tmp();
  const p = conflictStore(d.path, "pt=11 ct=7 tt=18 inference_id=k1", [
    "pt=22 ct=14 tt=36 inference_id=k1",
  ]);
  const [e] = provenanceTokenEvents(p, opts(d.path));
  assert.deepEqual(e!.tokens, T(11, 7, 18));
  assert.equal(e!.evidence[0]!.origin, "chat_meta");
  const same = write(
    join(d.path, "same.chat"),
    rc({ a1: [entry(tok("k2", 1, 1, 2))], a2: [entry(tok("k2", 1, 1, 2))] }),
  );
  const events = provenanceTokenEvents(same, opts(d.path));
  assert.equal(events.length, 1);
  assert.equal(events[0]!.evidence.length, 2);
  assert.equal(events[0]!.status, "receipt_only");
});

Deno.test("30: receipt problems are warnings once; strict without warnings; scopes", async () => {
  await using d = await tmp();
  const chat = write(
    join(d.path, "w.chat"),
    rc({ b1: "not-an-array", b2: [entry("job=Missing/ask/Gone")] }, [
      meta("pt=5 tt=6 inference_id=ok1"),
    ]),
  );
  const o = opts(d.path);
  const warnings: TokenWarning[] = [];
  const totals = provenanceTokenTotals(chat, { ...o, warnings });
  assert.deepEqual(warnings.map((w) => w.reason), ["not_an_array", "unresolved_job_reference"]);
  assert.equal(totals.tt, 6);
  assert.throws(() => provenanceTokenTotals(chat, o), (e: unknown) => isScoutError(e));
  assert.throws(
    () => provenanceTokenTotals(chat, { ...o, scope: "everything" as TokenScope }),
    (e: unknown) => isScoutError(e, "invalid_scope"),
  );
  // extraction problems are reported even when agent_job is not followed
  const onlyJob: TokenWarning[] = [];
  provenanceTokenTotals(chat, { ...o, warnings: onlyJob, follow: ["job"] });
  assert.deepEqual(onlyJob.map((w) => w.reason), ["not_an_array"]);
});

Deno.test("localTokens: first copy wins by inference_id or lineage, within and across files", async () => {
  const { localTokens } = await import("../../src/provenance/evidence.ts");
  const item = (k: number, meta: Record<string, string | number>) => ({
    origin: "chat_meta" as const,
    source: "/w/a.chat",
    meta,
    callId: null,
    toolName: null,
    metaAddress: ["/w/a.chat", k] as [string, number],
  });
  const file = (chat: ReturnType<typeof item>[], lineage: (string | null)[] | null) => ({
    path: "/w/a.chat",
    chat,
    lineage,
    receipts: [],
    receiptProblems: [],
  });
  const a = file([
    item(1, { pt: 1, tt: 1, inference_id: "x" }),
    item(3, { pt: 10, tt: 10, inference_id: "x" }), // same id: not again
    item(5, { pt: 100, tt: 100 }), // lineage "x": a different kind of key than the id "x"
    item(7, { pt: 1000, tt: 1000, inference_id: "" }), // empty id: by lineage, same as above
  ], [null, null, "x", "x"]);
  assert.equal(localTokens([a]).pt, 101);
  const lone = file([item(1, { pt: 7, ct: 2, tt: 9 })], ["l1"]);
  assert.deepEqual(localTokens([lone]), { pt: 7, ct: 2, tt: 9, cct: 0, cwt: 0, rt: 0 });
  // across files: the first file's copy wins, the second adds only what is new
  const b = file([item(1, { pt: 5, tt: 5, inference_id: "x" }), item(2, { pt: 3, tt: 3 })], [
    null,
    "y",
  ]);
  assert.equal(localTokens([lone, a, b, undefined]).pt, 7 + 101 + 3);
});

Deno.test("tokens(root) is provenanceTokenTotals (§9), exported by the library", async () => {
  await using d = await tmp();
  const log = "user: q\n\nmeta: pt=3 ct=1 tt=4 inference_id=g1\n\nassistant: a\n" +
    "\nuser: r\n\nmeta: pt=7 ct=2 tt=9 cct=5 inference_id=g2\n\nassistant: b\n";
  const chat = write(join(d.path, "s.chat"), log);
  const o = opts(d.path);
  assert.deepEqual(library.tokens(chat, o), T(10, 3, 13, { cct: 5 }));
  for (const scope of ["chat_evidence", "receipt_only"] as const) {
    assert.deepEqual(
      library.tokens(chat, { ...o, scope }),
      provenanceTokenTotals(chat, { ...o, scope }),
    );
  }
  assert.throws(
    () => library.tokens(chat, { ...o, scope: "everything" as TokenScope }),
    (e: unknown) => isScoutError(e, "invalid_scope"),
  );
});
