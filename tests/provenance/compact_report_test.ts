/**
 * The report keeps events as typed columns and each chat's evidence as
 * spilled JSON text (issue 16). These tests hold it to the in-memory
 * accounting it replaced (`collectEvidence`: every file's evidence as
 * objects, `tokenEvents`, `localTokens`): same events, same totals, same
 * direct tokens — on the fixtures and on random stores, with the texts in
 * memory and in the temporary file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { provenanceReport } from "../../src/provenance/report.ts";
import { collectEvidence } from "../../src/provenance/tokens.ts";
import { localTokens, scopeTotals } from "../../src/provenance/evidence.ts";
import { provenanceJson, provenanceJsonChunks } from "../../src/provenance/json.ts";
import { renderEvidence } from "../../src/provenance/render_evidence.ts";
import { textSpill } from "../../src/provenance/spill.ts";
import { rollup } from "../../src/provenance/rollup.ts";
import { chatStore } from "../../src/provenance/chat_store.ts";
import { eventTable, type ReportEvents } from "../../src/provenance/event_table.ts";
import { readChatFacts } from "../../src/provenance/chat_facts.ts";
import {
  compactTokens,
  fitted,
  K,
  putTokens,
  type TokenColumn,
  tokensAt,
} from "../../src/provenance/typed.ts";
import { writeWorkedExample } from "../../fixtures/provenance/generate.ts";
import { entry, fixtureB, meta, mkJob, rc, tmp, write } from "./support.ts";
import { storeArb, writeRandomStore } from "./random_store.ts";

const SOCIETY = join(import.meta.dirname!, "../../fixtures/provenance/society");

function assertLikeMemory(root: string, o: { cwd: string; jobRoots: string[] }): void {
  const base = { ...o, onError: () => {} };
  const memory = collectEvidence(root, base);
  const byPath = new Map(memory.files.map((f) => [f.path, f]));
  for (const spillAt of [undefined, 0]) {
    const report = provenanceReport(root, { ...o, spillAt });
    const label = spillAt === 0 ? "texts in the temporary file" : "texts in memory";
    assert.deepEqual([...report.events], memory.events, `events, ${label}`);
    // the document's event lines, written from the stored texts, are the records' JSON
    const doc = [...provenanceJsonChunks(report)].join("");
    const all = doc.split("\n");
    const from = all.findIndex((l) => l.startsWith('"events":['));
    const lines = all[from] === '"events":[],'
      ? []
      : all.slice(from + 1, all.indexOf("],", from)).map((l) => l.replace(/,$/, ""));
    assert.deepEqual(
      lines,
      provenanceJson(report).events.map((e) => JSON.stringify(e)),
      `event lines, ${label}`,
    );
    assert.equal(report.events.length, memory.events.length);
    // summaries read identities and addresses from the texts: the same as the records'
    assert.deepEqual(
      [...report.events.summaries!()],
      memory.events.map((e) => ({
        identity: e.identity,
        deduplication: e.deduplication,
        tokens: e.tokens,
        conflict: e.conflict,
        sources: e.evidence.map((x) =>
          x.origin === "chat_meta" ? x.metaAddress : x.evidenceAddress
        ),
      })),
      `summaries, ${label}`,
    );
    // roll-ups read canonical copies from the texts: the same as over whole records
    const dims = ["agent", "model", "endpoint", "job"] as const;
    assert.deepEqual(
      rollup(report, dims),
      rollup({ ...report, events: wholeRecords(report.events) }, dims),
      `roll-up, ${label}`,
    );
    const scopes = scopeTotals(memory.events);
    for (const k of Object.keys(scopes) as (keyof typeof scopes)[]) {
      assert.deepEqual(report.totals[k], scopes[k], `${k}, ${label}`);
    }
    assert.equal(report.totals.conflictEvents, memory.events.filter((e) => e.conflict).length);
    assert.equal(
      report.totals.incompleteEvidenceEvents,
      memory.events.filter((e) => e.incompleteEvidence).length,
    );
    assert.equal(
      report.events.hasReceiptEvidence,
      memory.events.some((e) => e.evidence.some((x) => x.origin === "agent_meta")),
    );
    for (const n of report.nodes) {
      const files = n.kind === "chat"
        ? [byPath.get(n.path)]
        : report.edges.filter((e) => e.from === n.id && e.relation === "log").map((e) =>
          byPath.get(e.to.slice("chat:".length))
        );
      assert.deepEqual(n.tokens.direct, localTokens(files), `direct of ${n.id}, ${label}`);
    }
  }
}

/** The events as a plain array: no texts to read canonical copies from. */
function wholeRecords(events: ReportEvents): ReportEvents {
  const all = [...events];
  return Object.assign(all, { hasReceiptEvidence: events.hasReceiptEvidence, toJSON: () => all });
}

function documents(root: string, o: { cwd: string; jobRoots: string[] }): string[] {
  return [undefined, 0].map((spillAt) => {
    const report = provenanceReport(root, { ...o, spillAt });
    return [...provenanceJsonChunks(report)].join("") + renderEvidence(report);
  });
}

Deno.test("compact report: the same events, totals and direct tokens as in memory (fixtures)", async () => {
  assertLikeMemory(join(SOCIETY, "plan.chat"), {
    cwd: SOCIETY,
    jobRoots: [join(SOCIETY, "jobs")],
  });
  await using d = await tmp();
  const o = { cwd: d.path, jobRoots: [join(d.path, "jobs")] };
  assertLikeMemory(await writeWorkedExample(d.path), o);
  assertLikeMemory(fixtureB(d.path), o);
});

Deno.test("compact report: the same events, totals and direct tokens as in memory (random stores)", async () => {
  await fc.assert(
    fc.asyncProperty(storeArb, async (store) => {
      await using d = await tmp();
      const root = writeRandomStore(d.path, store);
      assertLikeMemory(root, { cwd: d.path, jobRoots: [join(d.path, "jobs")] });
    }),
    { numRuns: 40 },
  );
});

Deno.test("compact report: the JSON document and evidence view do not depend on where texts wait", () => {
  const [inMemory, inFile] = documents(join(SOCIETY, "plan.chat"), {
    cwd: SOCIETY,
    jobRoots: [join(SOCIETY, "jobs")],
  });
  assert.equal(inFile, inMemory);
  assert.match(inMemory!, /"events":\[\n\{"inferenceId"/);
});

Deno.test("compact report: disputed copies, provider ids and legacy metas keep their flags", async () => {
  await using d = await tmp();
  // g1: two chat copies disagree on tt (conflict); g2: copies agree, one lacks its
  // provider response id (incomplete evidence); r9 (twice): no inference id, keyed by
  // its provider response id in events but by lineage for direct tokens.
  const log = [
    "user: q",
    "meta: pt=1 tt=10 inference_id=g1",
    "meta: pt=2 tt=20 inference_id=g2 provider_response_id=p2",
    "meta: pt=3 tt=30 provider_response_id=r9",
    "assistant: a",
    "user: again",
    "meta: pt=3 tt=30 provider_response_id=r9",
    "assistant: b",
  ].join("\n\n") + "\n";
  mkJob(join(d.path, "jobs/Wf/ask/W"), [], {
    "agent.chat": log,
    "society/A/c.chat": "user: q\n\nmeta: pt=1 tt=11 inference_id=g1\n\nassistant: a\n",
  });
  const root = write(
    join(d.path, "p.chat"),
    rc({ c1: [entry("pt=2 tt=20 inference_id=g2")] }, [meta("job=Wf/ask/W")]),
  );
  const o = { cwd: d.path, jobRoots: [join(d.path, "jobs")] };
  assertLikeMemory(root, o);
  const report = provenanceReport(root, o);
  const events = [...report.events];
  assert.deepEqual(events.map((e) => [e.identity[1], e.status]), [
    ["g1", "conflict"],
    ["g2", "incomplete_evidence"],
    ["r9", "counted_once"],
  ]);
  assert.equal(report.totals.conflictEvents, 1);
  // r9 twice in one log: one event, but two lineages count twice in the job's own tokens
  const job = [...report.nodes].find((n) => n.kind === "job")!;
  assert.equal(job.tokens.direct.tt, 10 + 20 + 30 + 30);
  assert.equal(report.warnings.filter((w) => w.code === "identity_conflict").length, 1);
});

Deno.test("text spill: texts read back as written, in memory and past the threshold in a file", () => {
  const texts = ["", "a", "ünïcödé ✓ 𝄞", "x".repeat(3000), '{"k":[1,2]}'];
  for (const spillAt of [1 << 20, 0, 10]) {
    const s = textSpill({ spillAt });
    const ids = texts.map((t) => s.add(t));
    assert.deepEqual(ids, [0, 1, 2, 3, 4]);
    assert.deepEqual(ids.map((i) => s.get(i)), texts, `spillAt ${spillAt}`);
    // more after reading: the file keeps growing where it was
    assert.equal(s.add("later"), 5);
    assert.equal(s.get(5), "later");
    assert.equal(s.get(2), texts[2]);
    s.close();
    s.close();
  }
});

Deno.test("text spill: without a writable temp directory the texts stay in memory", () => {
  const s = textSpill({ spillAt: 0, dir: "/nonexistent/scout-test" });
  assert.equal(s.add("kept"), 0);
  assert.equal(s.get(0), "kept");
  s.close();
});

Deno.test("event table: columns grown from one slot keep every event's tokens", async () => {
  await using d = await tmp();
  const metas = Array.from(
    { length: 300 },
    (_, i) => `meta: pt=${i} ct=1 tt=${i + 1} inference_id=e${i}`,
  );
  const path = write(
    join(d.path, "many.chat"),
    ["user: q", ...metas, "assistant: a"].join("\n\n") + "\n",
  );
  const store = chatStore();
  const table = eventTable(store, 1);
  const facts = readChatFacts(path);
  table.addChat(store.add(facts), facts.evidence);
  table.finish(() => {});
  assert.equal(table.count(), 300);
  for (let e = 0; e < 300; e++) {
    assert.deepEqual(table.tokensOf(e), { pt: e, ct: 1, tt: e + 1, cct: 0, cwt: 0, rt: 0 });
  }
  assert.deepEqual(table.localTotals([0]), localTokens([facts.evidence]));
  store.close();
});

Deno.test("event table: token columns shrink to 32 bits only when every value fits", async () => {
  const grownCol = new Float64Array(16);
  grownCol.set([1, 2, 2 ** 31 - 1, -5]);
  const small = compactTokens(grownCol, 4);
  assert.ok(small instanceof Int32Array);
  assert.deepEqual([...small], [1, 2, 2 ** 31 - 1, -5]);
  grownCol[1] = 2 ** 31; // one value past 32 bits keeps the column in doubles, fitted
  const big = compactTokens(grownCol, 4);
  assert.ok(big instanceof Float64Array);
  assert.deepEqual([...big], [1, 2 ** 31, 2 ** 31 - 1, -5]);
  assert.equal(fitted(new Int32Array(8), 3).length, 3);

  // end to end: a value past 32 bits survives the table's finish exactly
  await using d = await tmp();
  const path = write(
    join(d.path, "big.chat"),
    [
      "user: q",
      "meta: pt=7 ct=1 tt=8 inference_id=b",
      "meta: pt=3000000000 ct=1 tt=3000000001 inference_id=a",
      "meta: pt=9 ct=2 tt=11 inference_id=c",
      "assistant: a",
    ].join("\n\n") + "\n",
  );
  const store = chatStore();
  const table = eventTable(store, 1);
  const facts = readChatFacts(path);
  table.addChat(store.add(facts), facts.evidence);
  table.finish(() => {});
  // the column was 32-bit until the second event: the first kept its values
  assert.deepEqual(table.tokensOf(0), { pt: 7, ct: 1, tt: 8, cct: 0, cwt: 0, rt: 0 });
  assert.deepEqual(table.tokensOf(1), { pt: 3e9, ct: 1, tt: 3e9 + 1, cct: 0, cwt: 0, rt: 0 });
  assert.deepEqual(table.tokensOf(2), { pt: 9, ct: 2, tt: 11, cct: 0, cwt: 0, rt: 0 });
  store.close();
});

Deno.test("event table: a token column is 32-bit until a value does not fit, then doubles", () => {
  const t = (pt: number) => ({ pt, ct: 1, tt: pt + 1, cct: 0, cwt: 0, rt: 0 });
  let col: TokenColumn = new Int32Array(3 * K);
  col = putTokens(col, 0, t(2 ** 31 - 2));
  assert.ok(col instanceof Int32Array);
  col = putTokens(col, K, t(0.5)); // not an integer
  assert.ok(col instanceof Float64Array);
  col = putTokens(col, 2 * K, t(-3));
  assert.deepEqual(
    [0, 1, 2].map((i) => tokensAt(col, i * K)),
    [t(2 ** 31 - 2), t(0.5), t(-3)],
  );
});
