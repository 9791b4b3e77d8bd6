/**
 * Subtree totals (`provenance.md` §10.2) MUST equal `provenanceTokenTotals`
 * with the node as the root. The report computes them for all nodes at once;
 * these tests re-run the real per-node computation and compare, on the spec's
 * fixtures and on random stores (shared dependencies, cycles, copied
 * receipts, disagreeing copies).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { provenanceReport } from "../../src/provenance/report.ts";
import { provenanceTokenTotals } from "../../src/provenance/tokens.ts";
import { writeWorkedExample } from "../../fixtures/provenance/generate.ts";
import { entry, fixtureB, fixtureC, meta, mkJob, rc, tmp, write } from "./support.ts";
import { storeArb, writeRandomStore } from "./random_store.ts";

function assertSubtrees(root: string, dir: string, rootType: "chat" | "job" = "chat"): void {
  const o = { cwd: dir, jobRoots: [join(dir, "jobs")], onError: () => {} };
  const report = provenanceReport(root, { ...o, rootType });
  for (const n of report.nodes) {
    const expected = provenanceTokenTotals(n.path, { ...o, rootType: n.kind });
    assert.deepEqual(n.tokens.subtree, expected, `subtree of ${n.id}`);
  }
  assert.deepEqual(report.nodes.at(0)!.tokens.subtree, report.totals.deduplicated_total);
}

Deno.test("subtree totals equal per-node totals on the spec's fixtures", async () => {
  for (const build of [fixtureB, (d: string) => fixtureC(d).parent]) {
    await using d = await tmp();
    assertSubtrees(build(d.path), d.path);
  }
  await using d = await tmp();
  assertSubtrees(await writeWorkedExample(d.path), d.path);
});

Deno.test("disputed copies: each node takes the canonical copy it can reach", async () => {
  await using d = await tmp();
  // g1: the chat copy (tt=99) lives in W's log; the parent only holds a receipt (tt=15).
  mkJob(join(d.path, "jobs/Wf/ask/W"), [], {
    "agent.chat": "user: q\n\nmeta: pt=10 tt=99 inference_id=g1\n\nassistant: a\n",
  });
  const parent = write(
    join(d.path, "p.chat"),
    rc({ c1: [entry("pt=10 tt=15 inference_id=g1")] }, [meta("job=Wf/ask/W")]),
  );
  // Another chat with only the receipt: its own total is the receipt's.
  const lone = write(join(d.path, "lone.chat"), rc({ c1: [entry("pt=10 tt=15 inference_id=g1")] }));
  assertSubtrees(parent, d.path);
  assertSubtrees(lone, d.path);
  const report = provenanceReport(parent, { cwd: d.path, jobRoots: [join(d.path, "jobs")] });
  assert.equal(report.nodes.at(0)!.tokens.subtree.tt, 99);
  assert.equal(report.totals.conflictEvents, 1);
});

Deno.test("disputed chat copies: the canonical one follows each root's own discovery order", async () => {
  await using d = await tmp();
  const log = (tt: number) => `user: q\n\nmeta: pt=1 tt=${tt} inference_id=g\n\nassistant: a\n`;
  const j1 = mkJob(join(d.path, "jobs/Wf/t/J1"), [], { "agent.chat": log(10) });
  const j2 = mkJob(join(d.path, "jobs/Wf/t/J2"), [], { "agent.chat": log(20) });
  const k = mkJob(join(d.path, "jobs/Wf/t/K"), [j2, j1]);
  const root = write(
    join(d.path, "root.chat"),
    "user: go\n\nmeta: job=Wf/t/J1\n\nmeta: job=Wf/t/K\n",
  );
  const report = provenanceReport(root, { cwd: d.path, jobRoots: [join(d.path, "jobs")] });
  const byPath = new Map([...report.nodes].map((n) => [n.path, n]));
  assert.equal(byPath.get(root)!.tokens.subtree.tt, 10, "J1's copy is found first from the root");
  assert.equal(byPath.get(k)!.tokens.subtree.tt, 20, "J2's copy is found first from K");
  assertSubtrees(root, d.path);
});

/** A random store: jobs with dependencies (cycles allowed), logs, receipts, markers. */

Deno.test("subtree totals equal per-node totals on random stores", async () => {
  await fc.assert(
    fc.asyncProperty(storeArb, async (store) => {
      await using d = await tmp();
      const root = writeRandomStore(d.path, store);
      assertSubtrees(root, d.path);
    }),
    { numRuns: 40 },
  );
});
