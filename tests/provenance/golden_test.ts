/**
 * The worked example of `provenance.md` §10.8 as a golden test (§11 test 36):
 * tree, component tree, flow, DOT, evidence report and JSON. The example is
 * built in a temp dir by the fixture generator, then every path in the report
 * is rewritten to the spec's `/w` before rendering (renderers are pure, so the
 * flow's padding and path hashes are those of `/w/...`).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { type ProvenanceReport, provenanceReport } from "../../src/provenance/report.ts";
import { renderTree } from "../../src/provenance/render_tree.ts";
import { renderDot, renderFlow } from "../../src/provenance/render_flow.ts";
import { renderEvidence, warningLines } from "../../src/provenance/render_evidence.ts";
import { provenanceJson, writeProvenanceJson } from "../../src/provenance/json.ts";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import { EXAMPLE_JOBS, writeWorkedExample } from "../../fixtures/provenance/generate.ts";
import { ProvenanceDocument } from "./schema.ts";
import { assertRenders, tmp } from "./support.ts";

const GOLDEN = join(import.meta.dirname!, "golden");
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

function golden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  if (UPDATE) writeFileSync(file, actual);
  assert.equal(actual, readFileSync(file, "utf8"), `golden ${name}`);
}

/** The report with every occurrence of `from` (a temp dir) replaced by `/w`. */
function relocate(report: ProvenanceReport, from: string): ProvenanceReport {
  const out = JSON.parse(JSON.stringify(report).replaceAll(from, "/w"));
  out.events.hasReceiptEvidence = report.events.hasReceiptEvidence;
  return out;
}

async function example() {
  const d = await tmp();
  const root = await writeWorkedExample(d.path);
  const report = provenanceReport(root, { cwd: d.path, jobRoots: [join(d.path, "jobs")] });
  return { d, root, report, w: relocate(report, d.path) };
}

Deno.test("36: the generated session.chat is the spec's text", async () => {
  const { d, root } = await example();
  await using _ = d;
  const spec = readFileSync(join(GOLDEN, "example.session.chat"), "utf8");
  assert.deepEqual(parse(readFileSync(root, "utf8")), parse(spec));
  const indices = parse(spec).map((m) => m.role);
  assert.deepEqual([indices[2], indices[5], indices[6], indices[7], indices[8]], [
    "meta",
    "meta",
    "function_call",
    "function_call_output",
    "meta",
  ]);
});

Deno.test("36: traversal yields the root and the twelve edges in the spec's order", async () => {
  const { d, root } = await example();
  await using _ = d;
  const recs = [...traverseProvenance(root, { cwd: d.path, jobRoots: [join(d.path, "jobs")] })];
  const j = (s: string) => join(d.path, "jobs", s);
  const { S, A, P, W } = EXAMPLE_JOBS;
  assert.deepEqual(recs.map((r) => [r.relation, r.node.path, r.firstVisit]), [
    [null, root, true],
    ["job", j(P), true],
    ["agent_job", j(W), true],
    ["dependency", j(A), true],
    ["dependency", j(S), true],
    ["log", j(P) + ".files/log/agent.chat", true],
    ["log", j(P) + ".files/log/society/Critic/default.chat", true],
    ["result", j(P), true],
    ["log", j(W) + ".files/log/agent.chat", true],
    ["result", j(W), true],
    ["dependency", j(S), false],
    ["job", j(P), false],
    ["job", j(W), false],
  ]);
});

Deno.test("36: tree, component tree, flow, DOT and evidence are the golden texts", async () => {
  const { d, w } = await example();
  await using _ = d;
  golden("example.tree.txt", renderTree(w));
  golden("example.component.txt", renderTree(w, { component: true }));
  golden("example.flow.txt", renderFlow(w));
  golden("example.dot", renderDot(w));
  golden("example.evidence.txt", renderEvidence(w));
  assertRenders(renderDot(w));
  assertRenders(renderDot(w, { component: true, long: true }));
  assert.deepEqual(warningLines(w), []);
});

Deno.test("36: the evidence report has the spec's rows and sections", async () => {
  const { d, w } = await example();
  await using _ = d;
  const text = renderEvidence(w);
  const rows = text.split("\n").map((l) => l.replace(/ +/g, " "));
  assert.ok(rows.includes("s1 total=60 prompt=50 cont=10 chat_meta session.chat:5 counted once"));
  assert.ok(
    rows.includes(
      "w1 total=120 prompt=100 cont=20 chat_meta Worker/ask/Default_f00dcafe42.chat.files/log/agent.chat:2; agent_meta session.chat:7[agent_meta,0] call=call_1 counted once",
    ),
  );
  assert.ok(
    rows.includes(
      "w9 total=35 prompt=30 cont=5 agent_meta session.chat:7[agent_meta,1] call=call_1 receipt-only",
    ),
  );
  assert.ok(text.includes("\nReceipt-only events (no saved child log): w9\n"));
  assert.ok(
    text.includes(
      "  job=/w/jobs/Worker/ask/Default_f00dcafe42.chat at session.chat:7[agent_meta,2] call=call_1 tool=ask (delegated_result edge)",
    ),
  );
  assert.ok(text.startsWith("\nDirect inference events\n" + "=".repeat(23) + "\n"));
});

Deno.test("36: the JSON document validates and matches the spec's listing", async () => {
  const { d, w } = await example();
  await using _ = d;
  let text = "";
  writeProvenanceJson(w, (s) => text += s);
  golden("example.json.golden", text);
  const doc = JSON.parse(text);
  assert.deepEqual(doc, JSON.parse(JSON.stringify(provenanceJson(w))));
  ProvenanceDocument.parse(doc);
  const T = (pt: number, ct: number, tt: number) => ({ pt, ct, tt, cct: 0, cwt: 0, rt: 0 });
  const Z = T(0, 0, 0);
  const $ = (s: string) => "/w/jobs/" + s;
  const { S, A, P, W } = EXAMPLE_JOBS;
  assert.equal(doc.root, "chat:/w/session.chat");
  assert.equal(doc.complete, true);
  // the spec's listing, then the port's `attempt` (R109-3)
  assert.deepEqual(doc.follow, ["job", "dependency", "log", "result", "agent_job", "attempt"]);
  assert.deepEqual(
    doc.nodes.map((
      n: { id: string; label: string | null; hidden: string | null; owner: string | null },
    ) => [
      n.id,
      n.label,
      n.hidden,
      n.owner,
    ]),
    [
      ["chat:/w/session.chat", "session.chat", null, null],
      [`job:${$(P)}`, "Planner/ask a1b2c3d4", null, null],
      [`job:${$(W)}`, "Worker/ask f00dcafe", null, null],
      [`job:${$(A)}`, "Data/filter 0badf00d", null, null],
      [`job:${$(S)}`, "Data/load 5eed5eed", null, null],
      [`chat:${$(P)}.files/log/agent.chat`, null, "top_level_agent_log", `job:${$(P)}`],
      [
        `chat:${$(P)}.files/log/society/Critic/default.chat`,
        "Critic · default",
        null,
        null,
      ],
      [`chat:${$(P)}`, null, "result_chat", `job:${$(P)}`],
      [`chat:${$(W)}.files/log/agent.chat`, null, "top_level_agent_log", `job:${$(W)}`],
      [`chat:${$(W)}`, null, "result_chat", `job:${$(W)}`],
    ],
  );
  assert.deepEqual(doc.nodes.map((n: { tokens: unknown }) => n.tokens), [
    { direct: T(130, 25, 155), subtree: T(760, 158, 918) },
    { direct: T(500, 108, 608), subtree: T(500, 108, 608) },
    { direct: T(100, 20, 120), subtree: T(100, 20, 120) },
    { direct: Z, subtree: Z },
    { direct: Z, subtree: Z },
    { direct: T(460, 100, 560), subtree: T(460, 100, 560) },
    { direct: T(40, 8, 48), subtree: T(40, 8, 48) },
    { direct: Z, subtree: T(500, 108, 608) },
    { direct: T(100, 20, 120), subtree: T(100, 20, 120) },
    { direct: Z, subtree: T(100, 20, 120) },
  ]);
  assert.deepEqual(doc.nodes[0].receipts, { events: 2, tt: 155, tools: ["ask"] });
  assert.deepEqual(doc.nodes[1].job, {
    workflow: "Planner",
    task: "ask",
    type: "chat",
    status: "done",
    shortId: "a1b2c3d4",
  });
  assert.deepEqual(doc.edges[1], {
    from: "chat:/w/session.chat",
    to: `job:${$(W)}`,
    relation: "agent_job",
    firstVisit: true,
    detail: {
      callId: "call_1",
      toolName: "ask",
      outputAddress: ["/w/session.chat", 7],
      evidenceAddress: ["/w/session.chat", 7, "agent_meta", 2],
      agentMetaIndex: 2,
      reference: "Worker/ask/Default_f00dcafe42.chat",
    },
  });
  assert.deepEqual(
    doc.edges.map((e: { relation: string; firstVisit: boolean }) => [e.relation, e.firstVisit]),
    [
      ["job", true],
      ["agent_job", true],
      ["dependency", true],
      ["dependency", true],
      ["log", true],
      ["log", true],
      ["result", true],
      ["log", true],
      ["result", true],
      ["dependency", false],
      ["job", false],
      ["job", false],
    ],
  );
  assert.deepEqual(doc.events.map((e: { inferenceId: string }) => e.inferenceId), [
    "s1",
    "s2",
    "p1",
    "p2",
    "c1",
    "w1",
    "w9",
  ]);
  const w1 = doc.events[5];
  assert.deepEqual(w1.identity, ["inference_id", "w1"]);
  assert.equal(w1.status, "counted_once");
  assert.deepEqual(w1.evidence.map((e: { origin: string }) => e.origin), [
    "chat_meta",
    "agent_meta",
  ]);
  assert.deepEqual(w1.evidence[0].metaAddress, [`${$(W)}.files/log/agent.chat`, 2]);
  assert.deepEqual(w1.evidence[1].evidenceAddress, ["/w/session.chat", 7, "agent_meta", 0]);
  assert.deepEqual(doc.totals, {
    deduplicated_total: T(760, 158, 918),
    chat_evidence: T(730, 153, 883),
    receipt_evidence: T(130, 25, 155),
    receipt_only: T(30, 5, 35),
    authoritative: true,
    conflictEvents: 0,
    incompleteEvidenceEvents: 0,
  });
  assert.deepEqual(doc.warnings, []);
});
