import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { provenanceReport, type ReportNode } from "../../src/provenance/report.ts";
import type { ProvenanceReport } from "../../src/provenance/report_types.ts";
import { relationRank } from "../../src/provenance/display.ts";
import { displayEnds } from "../../src/provenance/display_index.ts";
import { shownLabel, treeLines } from "../../src/provenance/render_tree.ts";
import { tokenText } from "../../src/provenance/format.ts";
import { walkProvenance } from "../../src/provenance/traverse.ts";
import type { Relation } from "../../src/provenance/types.ts";
import { tmp } from "./support.ts";
import { storeArb, writeRandomStore } from "./random_store.ts";

const SOCIETY = join(import.meta.dirname!, "../../fixtures/provenance/society");

/**
 * The tree's first lines as the spec words them, by node id (how the tree was
 * made before it walked node indices): each node once, then `(seen)`;
 * children in discovery order, stably sorted by relation rank.
 */
function treeById(report: ProvenanceReport): string[] {
  const byId = new Map([...report.nodes].map((n) => [n.id, n]));
  const kids = new Map<string, { to: string; relation: Relation }[]>();
  for (const e of report.displayEdges) {
    if (!kids.has(e.from)) kids.set(e.from, []);
    kids.get(e.from)!.push({ to: e.to, relation: e.relation });
  }
  for (const list of kids.values()) {
    list.sort((a, b) => relationRank(a.relation) - relationRank(b.relation));
  }
  const out: string[] = [];
  const printed = new Set<string>();
  const visit = (id: string, depth: number, relation: Relation | null) => {
    const n = byId.get(id)!;
    const indent = "  ".repeat(depth);
    const label = `${relation === "agent_job" ? "delegated-job " : ""}${shownLabel(n, {})}`;
    if (printed.has(id)) return void out.push(`${indent}${n.kind} ${label} (seen)`);
    printed.add(id);
    const tokens = tokenText(n.tokens.subtree);
    out.push(`${indent}${n.kind}${tokens === "" ? "" : " " + tokens} ${label}`);
    for (const k of kids.get(id) ?? []) visit(k.to, depth + 1, k.relation);
  };
  visit(report.root, 0, null);
  return out;
}

/** The tree's lines without receipt notes (what {@link treeById} checks). */
function shape(report: ProvenanceReport): string[] {
  return [...treeLines(report)].filter((l) => !l.trimStart().startsWith("delegated receipt:"));
}

/** The same report with its display edges in a new array: the indices come from the ids. */
function withoutKeptIndex(report: ProvenanceReport): ProvenanceReport {
  return { ...report, displayEdges: [...report.displayEdges] };
}

function assertTreesAgree(report: ProvenanceReport): void {
  const copy = withoutKeptIndex(report);
  assert.deepEqual(displayEnds(copy), displayEnds(report));
  for (const component of [false, true]) {
    assert.deepEqual([...treeLines(copy, { component })], [...treeLines(report, { component })]);
  }
  assert.deepEqual(shape(report), treeById(report));
}

Deno.test("display index: the tree by node index is the tree by id (fixture)", () => {
  assertTreesAgree(
    provenanceReport(join(SOCIETY, "plan.chat"), {
      cwd: SOCIETY,
      jobRoots: [join(SOCIETY, "jobs")],
    }),
  );
});

Deno.test("display index: the tree by node index is the tree by id (random stores)", async () => {
  await fc.assert(
    fc.asyncProperty(storeArb, async (store) => {
      await using d = await tmp();
      const root = writeRandomStore(d.path, store);
      assertTreesAgree(provenanceReport(root, { cwd: d.path, jobRoots: [join(d.path, "jobs")] }));
    }),
    { numRuns: 40 },
  );
});

function node(id: string): ReportNode {
  const zero = { pt: 0, ct: 0, tt: 0, cct: 0, cwt: 0, rt: 0 };
  return {
    id,
    kind: "chat",
    path: `/s/${id}`,
    label: id,
    hidden: null,
    owner: null,
    caller: null,
    job: null,
    tokens: { direct: zero, subtree: zero },
    receipts: null,
  };
}

Deno.test("display index: a hand-made report's children sorted by rank, discovery order kept, unknown ids skipped", () => {
  const rels: Relation[] = ["result", "dependency", "log", "agent_job", "job", "dependency", "log"];
  const kids = rels.map((_, i) => `k${i}`);
  const report = {
    root: "r",
    nodes: [node("x"), node("r"), ...kids.map(node)],
    displayEdges: [
      ...rels.map((relation, i) => ({ from: "r", to: kids[i]!, relation })),
      { from: "r", to: "nowhere", relation: "dependency" as const },
      { from: "k1", to: "k0", relation: "result" as const },
    ],
  } as unknown as ProvenanceReport;
  assert.deepEqual([...treeLines(report)], [
    "chat r",
    "  chat k1",
    "    chat k0",
    "  chat k5",
    "  chat k2",
    "  chat k6",
    "  chat k4",
    "  chat delegated-job k3",
    "  chat k0 (seen)",
  ]);
});

Deno.test("traversal: releaseInfo lets a job's .info go once it is expanded; the report keeps its summary", () => {
  const o = { cwd: SOCIETY, jobRoots: [join(SOCIETY, "jobs")] };
  const infos = (releaseInfo: boolean) => {
    const jobs = [...walkProvenance(join(SOCIETY, "plan.chat"), { ...o, releaseInfo })]
      .filter((r) => r.kind === "job");
    assert.ok(jobs.length > 0);
    return jobs.map((r) => r.node.kind === "job" ? r.node.info : undefined);
  };
  assert.ok(infos(false).every((info) => info !== null && typeof info === "object"));
  assert.ok(infos(true).every((info) => info === null));
  const report = provenanceReport(join(SOCIETY, "plan.chat"), o);
  const jobs = [...report.nodes].filter((n) => n.kind === "job");
  assert.ok(jobs.length > 0 && jobs.every((n) => n.job !== null && n.job.workflow !== null));
});

Deno.test("a node whose direct and subtree tokens are equal holds one record for both", () => {
  const report = provenanceReport(join(SOCIETY, "plan.chat"), {
    jobRoots: [join(SOCIETY, "jobs")],
  });
  let shared = 0;
  let apart = 0;
  for (const n of report.nodes) {
    const { direct, subtree } = n.tokens;
    const equal = JSON.stringify(direct) === JSON.stringify(subtree);
    // equal values: the same object (one record on a big store's leaves); else two
    assert.equal(direct === subtree, equal, n.id);
    if (equal) shared++;
    else apart++;
  }
  assert.ok(shared > 0 && apart > 0, `${shared} shared, ${apart} apart`);
});

Deno.test("report nodes are columns: at, iteration and JSON agree, records are made per read", () => {
  const report = provenanceReport(join(SOCIETY, "plan.chat"), {
    jobRoots: [join(SOCIETY, "jobs")],
  });
  const nodes = report.nodes;
  const all = [...nodes];
  assert.ok(all.length > 3);
  assert.equal(all.length, nodes.length);
  all.forEach((n, i) => assert.deepEqual(nodes.at(i), n));
  assert.deepEqual(nodes.at(-1), all[all.length - 1]);
  assert.equal(nodes.at(nodes.length), undefined);
  assert.equal(nodes.at(-nodes.length - 1), undefined);
  // JSON prints the array of records, as an array of nodes would
  assert.equal(JSON.stringify(nodes), JSON.stringify(all));
  assert.equal(JSON.parse(JSON.stringify(report)).nodes.length, all.length);
  // a record is made for each read: editing one leaves the report as it was
  nodes.at(0)!.label = "edited";
  assert.notEqual(nodes.at(0)!.label, "edited");
  assert.equal(nodes.at(0)!.id, report.root);
});
