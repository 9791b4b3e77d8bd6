/**
 * `llm prov` over a recorded multi-agent run (issue 11 item 6):
 * `fixtures/provenance/society/`, written by the real CLI
 * (`fixtures/provenance/record_society.ts`): `scout-ai agent ask Planner` on
 * the example society, where the Planner's workflow makes every ask a chat
 * task job. Inside the job Planner/ask the Planner asks the Researcher twice
 * in one conversation (`ask` tool, conversation "facts"), the Researcher
 * uses its workflow tool and asks the Librarian once (a nested society:
 * `log/society/Researcher/facts/society/Librarian/_oneshot-1.chat`), the
 * Planner uses its own workflow tool `schedule` and hands the plan to the
 * Critic (`hand_off_to_Critic`), whose workflow runs that inference as the job
 * Critic/ask (a delegated job: the receipt says `job=Critic/ask/…`).
 *
 * The eleven inferences, in the order the loopback provider answered them
 * (`fixtures/agents/script.json`; pt/ct are distinct primes, tt = pt + ct):
 *
 * | #   | agent      | pt  | ct | tt  | saved in (chat evidence)         | receipts (agent_meta) in        |
 * | --- | ---------- | --- | -- | --- | -------------------------------- | ------------------------------- |
 * | r1  | Planner    | 101 | 11 | 112 | Planner log/agent.chat           | –                               |
 * | r2  | Researcher | 103 | 13 | 116 | society/Researcher/facts.chat    | Planner agent.chat, result, plan.chat |
 * | r3  | Researcher | 107 | 17 | 124 | facts.chat                       | same                            |
 * | r4  | Librarian  | 109 | 19 | 128 | …/society/Librarian/_oneshot-1.chat | facts.chat; forwarded with the Researcher's: Planner agent.chat, result, plan.chat |
 * | r5  | Researcher | 113 | 23 | 136 | facts.chat                       | Planner agent.chat, result, plan.chat |
 * | r6  | Planner    | 127 | 29 | 156 | Planner agent.chat               | –                               |
 * | r7  | Researcher | 131 | 31 | 162 | facts.chat                       | Planner agent.chat, result, plan.chat |
 * | r8  | Planner    | 137 | 37 | 174 | Planner agent.chat (calls schedule) | –                            |
 * | r9  | Planner    | 139 | 41 | 180 | Planner agent.chat (hands off)   | –                               |
 * | r10 | Critic     | 149 | 43 | 192 | Critic/ask log/agent.chat        | – (the receipt is `job=Critic/ask/…`) |
 * | r11 | Planner    | 151 | 47 | 198 | Planner agent.chat               | –                               |
 *
 * Sums: all      pt 1367 = 101+103+107+109+113+127+131+137+139+149+151,
 *                ct  311 = 11+13+17+19+23+29+31+37+41+43+47, tt 1678.
 *       Planner   r1+r6+r8+r9+r11  = pt 655, ct 165, tt 820.
 *       Researcher own r2+r3+r5+r7 = pt 454, ct  84, tt 538.
 *       Researcher's log reaches r4 too (receipt + nested log) = pt 563, ct 103, tt 666.
 *       Critic    r10 = 149/43/192.  Librarian r4 = 109/19/128.
 * A double count of any inference would add a distinct prime to some total.
 */
import assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain } from "../support/cli.ts";
import { provenanceReport, type ReportNode } from "../../src/provenance/report.ts";
import { renderTree } from "../../src/provenance/render_tree.ts";
import { renderDot, renderFlow } from "../../src/provenance/render_flow.ts";
import { provenanceJson } from "../../src/provenance/json.ts";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import { callerLog } from "../../src/provenance/society.ts";
import { provenanceTokenTotals } from "../../src/provenance/tokens.ts";
import type { TokenTotals } from "../../src/chat/trace.ts";
import { tmp } from "./support.ts";
import { ProvenanceDocument } from "./schema.ts";

const FIXTURE = join(ROOT, "fixtures", "provenance", "society");
const JOBS = join(FIXTURE, "jobs");
const PLANNER = join(JOBS, "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat");
const CRITIC = join(JOBS, "Critic/ask/Default_7306c721a4a0b9b93a429f47ef56241b.chat");
const LOG = PLANNER + ".files/log/";

const T = (pt: number, ct: number): TokenTotals => ({ pt, ct, tt: pt + ct, cct: 0, cwt: 0, rt: 0 });
const ZERO = T(0, 0);
const ALL = T(1367, 311);

function report(dir = FIXTURE) {
  return provenanceReport(join(dir, "plan.chat"), { cwd: dir, jobRoots: [join(dir, "jobs")] });
}

function node(nodes: Iterable<ReportNode>, id: string): ReportNode {
  const n = [...nodes].find((x) => x.id === id);
  assert.ok(n, `node ${id}`);
  return n;
}

Deno.test("society run: the tree shows every agent log once, nested societies under their caller, totals hand-computed", () => {
  const r = report();
  assert.equal(r.warnings.length, 0, JSON.stringify(r.warnings));
  assert.equal(
    renderTree(r),
    [
      // root: 1367/311/1678; its own receipts are the Researcher's r2 r3 r5 r7 and the
      // Librarian's r4, which the Researcher's receipts carry (116+124+128+136+162 = 666)
      "chat total=1.7K prompt=1.4K cont=311 plan.chat",
      "  delegated receipt: 5 events, total=666, ask",
      // the chat task job reaches everything; its hidden agent.chat holds the same five receipts
      "  job total=1.7K prompt=1.4K cont=311 Planner/ask cefe35d2",
      "    delegated receipt: 5 events, total=666, ask",
      // the Critic's log has no tokens of its own; its `meta job=` reaches Critic/ask (r10 = 192)
      "    chat total=192 prompt=149 cont=43 Critic · default",
      "      job total=192 prompt=149 cont=43 Critic/ask 7306c721",
      // r2+r3+r5+r7 (own) + r4 (receipt of the Librarian, and its nested log) = 563/103/666
      "    chat total=666 prompt=563 cont=103 Researcher · facts",
      "      delegated receipt: 1 events, total=128, ask",
      // nested: a child of the Researcher's log, not of the job (r4 = 109/19/128)
      "      chat total=128 prompt=109 cont=19 Librarian · _oneshot-1",
      // the hand-off receipt names Critic/ask (from the hidden agent.chat, and copied into plan.chat)
      "    job delegated-job Critic/ask 7306c721 (seen)",
      "  job delegated-job Critic/ask 7306c721 (seen)",
      "",
    ].join("\n"),
  );
});

Deno.test("society run: direct and subtree totals of every node, and the scopes, as computed by hand", () => {
  const r = report();
  const facts = LOG + "society/Researcher/facts.chat";
  const librarian = LOG + "society/Researcher/facts/society/Librarian/_oneshot-1.chat";
  const critic = LOG + "society/Critic/default.chat";
  const expected: [string, TokenTotals, TokenTotals][] = [
    // id, direct, subtree
    [`chat:${FIXTURE}/plan.chat`, ZERO, ALL], // projected answer: receipts, no token metas
    [`job:${PLANNER}`, T(1367 - 149, 311 - 43), ALL], // its logs hold all but the Critic's r10
    // the Planner's hidden log: its own r1 r6 r8 r9 r11 (655/165), the receipts of r2 r3 r5 r7
    // (454/84) and r4 (109/19), and the hand-off receipt's job Critic/ask (149/43): all of it
    [`chat:${LOG}agent.chat`, T(655, 165), T(655 + 454 + 109 + 149, 165 + 84 + 19 + 43)],
    [`chat:${facts}`, T(454, 84), T(563, 103)],
    [`chat:${librarian}`, T(109, 19), T(109, 19)],
    [`chat:${critic}`, ZERO, T(149, 43)],
    [`job:${CRITIC}`, T(149, 43), T(149, 43)],
    [`chat:${CRITIC}.files/log/agent.chat`, T(149, 43), T(149, 43)],
  ];
  for (const [id, direct, subtree] of expected) {
    const n = node(r.nodes, id);
    assert.deepEqual(n.tokens, { direct, subtree }, id);
  }
  // each node's subtree is what a walk from that node counts (the Researcher's log reaches
  // the Librarian's inference through its receipt as well as through the nested log)
  for (const n of r.nodes) {
    const root = n.kind === "job" ? { kind: "job" as const, path: n.path, info: null } : n.path;
    const walked = provenanceTokenTotals(root, { cwd: FIXTURE, jobRoots: [JOBS] });
    assert.deepEqual(n.tokens.subtree, walked, n.id);
  }
  // the two result chats are hidden; each points back at its job (whose subtree it shows)
  assert.deepEqual(node(r.nodes, `chat:${PLANNER}`).tokens.subtree, ALL);
  assert.deepEqual(node(r.nodes, `chat:${CRITIC}`).tokens.subtree, T(149, 43));
  assert.deepEqual(r.totals.deduplicated_total, ALL);
  assert.deepEqual(r.totals.chat_evidence, ALL); // every inference was saved in some log
  assert.deepEqual(r.totals.receipt_evidence, T(563, 103)); // r2 r3 r4 r5 r7
  assert.deepEqual(r.totals.receipt_only, ZERO);
  assert.equal(r.totals.authoritative, true);
});

Deno.test("society run: every agent log, delegated job and inference exactly once", () => {
  const r = report();
  const ids = [...r.nodes].map((n) => n.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...r.nodes].filter((n) => n.kind === "job").map((n) => n.path), [
    PLANNER,
    CRITIC,
  ]);
  const logs = [...r.nodes].filter((n) => n.kind === "chat" && n.path.includes(".files/log/"));
  assert.deepEqual(logs.map((n) => [n.path.slice(JOBS.length + 1), n.label, n.hidden]).sort(), [
    [
      "Critic/ask/Default_7306c721a4a0b9b93a429f47ef56241b.chat.files/log/agent.chat",
      null,
      "top_level_agent_log",
    ],
    [
      "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/agent.chat",
      null,
      "top_level_agent_log",
    ],
    [
      "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/society/Critic/default.chat",
      "Critic · default",
      null,
    ],
    [
      "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/society/Researcher/facts.chat",
      "Researcher · facts",
      null,
    ],
    [
      "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/society/Researcher/facts/society/Librarian/_oneshot-1.chat",
      "Librarian · _oneshot-1",
      null,
    ],
  ]);
  // eleven inferences, eleven distinct ids, the scripted tokens each once
  assert.equal(r.events.length, 11);
  const events = [...r.events];
  assert.equal(new Set(events.map((e) => e.inferenceId)).size, 11);
  assert.deepEqual(
    events.map((e) => e.tokens.pt).sort((a, b) => a - b),
    [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151],
  );
  assert.ok(events.every((e) => e.status === "counted_once" && !e.conflict));
  // a Researcher inference: saved in facts.chat, receipted in the Planner's log, its
  // projected result and plan.chat — four copies, one event
  const r2 = events.find((e) => e.tokens.pt === 103)!;
  assert.deepEqual(r2.evidence.map((x) => [x.origin, x.source.slice(FIXTURE.length + 1)]), [
    [
      "chat_meta",
      "jobs/Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/society/Researcher/facts.chat",
    ],
    ["agent_meta", "plan.chat"],
    [
      "agent_meta",
      "jobs/Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/agent.chat",
    ],
    ["agent_meta", "jobs/Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat"],
  ]);
});

Deno.test("society run: the nested society's log is displayed under its caller's log, in tree, flow and DOT", () => {
  const r = report();
  const facts = `chat:${LOG}society/Researcher/facts.chat`;
  const librarian = `chat:${LOG}society/Researcher/facts/society/Librarian/_oneshot-1.chat`;
  assert.deepEqual(
    [...r.nodes].filter((n) => n.caller !== null).map((n) => [n.id, n.caller]),
    [[librarian, facts]],
  );
  assert.deepEqual(r.displayEdges.filter((e) => e.to === librarian), [
    { from: facts, to: librarian, relation: "log" },
  ]);
  // the discovery edges keep the spec's relation: every log is a log of its job
  assert.deepEqual(r.edges.filter((e) => e.to === librarian).map((e) => [e.from, e.relation]), [
    [`job:${PLANNER}`, "log"],
  ]);
  const flow = renderFlow(r);
  assert.match(flow, /\[ 4\] Chat {2}Researcher · facts +666 /);
  assert.match(
    flow,
    /\[ 5\] Chat {2}Librarian · _oneshot-1 +128 /,
  );
  assert.match(flow, /^\[ 4\] --log {7}--> \[ 5\]$/m);
  const dot = renderDot(r);
  assert.match(
    dot,
    /label="Chat\\nLibrarian · _oneshot-1\\n128 tokens"/,
  );
  assert.equal(
    callerLog("society/Researcher/facts/society/Librarian/_oneshot-1.chat"),
    "society/Researcher/facts.chat",
  );
  assert.equal(callerLog("round-1/society/Critic/default.chat"), "round-1/agent.chat");
  assert.equal(callerLog("society/Critic/default.chat"), null);
  assert.equal(callerLog("agent.chat"), null);
});

Deno.test("society run: llm prov --json has the same nodes and the hand-computed totals", async () => {
  const r = await runMain(["llm", "prov", "plan.chat", "--json", "-J", "jobs"], {
    cwd: FIXTURE,
    env: { NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const doc = JSON.parse(r.stdout);
  ProvenanceDocument.parse(doc); // the v1 schema, `caller` included
  assert.deepEqual(doc, JSON.parse(JSON.stringify(provenanceJson(report()))));
  assert.deepEqual(doc.totals.deduplicated_total, ALL);
  // the nested log names its caller's log
  assert.deepEqual(
    [...doc.nodes].filter((n: { caller: string | null }) => n.caller !== null).map((
      n: { label: string; caller: string },
    ) => [n.label, n.caller.slice(n.caller.indexOf("log/") + 4)]),
    [[
      "Librarian · _oneshot-1",
      "society/Researcher/facts.chat",
    ]],
  );
  assert.deepEqual(doc.totals.receipt_evidence, T(563, 103));
  assert.equal(doc.events.length, 11);
  const byLabel = new Map<string, { tokens: { subtree: TokenTotals } }>(
    [...doc.nodes].filter((n: { label: string | null }) => n.label !== null).map((
      n: { label: string; tokens: { subtree: TokenTotals } },
    ) => [n.label, n]),
  );
  assert.deepEqual(
    [...byLabel.entries()].map(([l, n]) => [l, n.tokens.subtree.tt]),
    [
      ["plan.chat", 1678],
      ["Planner/ask cefe35d2", 1678],
      ["Critic/ask 7306c721", 192],
      ["Critic · default", 192],
      ["Researcher · facts", 666],
      ["Librarian · _oneshot-1", 128],
    ],
  );
});

Deno.test("society run: a job and its log reached by two paths (receipt and a log's job= marker) are counted once", () => {
  const recs = [
    ...traverseProvenance(join(FIXTURE, "plan.chat"), { cwd: FIXTURE, jobRoots: [JOBS] }),
  ];
  // Critic/ask: reached from plan.chat's receipt, the Planner log's receipt, the Critic
  // society log's `meta job=` marker and the result chat's receipt: expanded once
  const critic = recs.filter((x) => x.node.path === CRITIC && x.kind === "job");
  assert.ok(critic.length >= 3, String(critic.length));
  assert.deepEqual(critic.map((x) => x.firstVisit).filter(Boolean), [true]);
  assert.deepEqual(
    [...new Set(critic.map((x) => x.relation))].sort(),
    ["agent_job", "job"],
  );
  const criticLog = recs.filter((x) => x.node.path === CRITIC + ".files/log/agent.chat");
  assert.equal(criticLog.length, 1);
  // so r10 (149/43/192) is in the total once: 1678, not 1870
  assert.equal(report().totals.deduplicated_total.tt, 1678);
});

Deno.test("society run: receipts found by the directory scan and in the saved log count once; without the log they still count", async () => {
  await using d = await tmp();
  cpSync(FIXTURE, d.path, { recursive: true });
  const facts = join(
    d.path,
    "jobs",
    PLANNER.slice(JOBS.length + 1) + ".files/log/society/Researcher",
  );
  // with the Researcher's log: r2 r3 r5 r7 each have chat evidence and receipts → once
  assert.deepEqual(report(d.path).totals.deduplicated_total, ALL);
  rmSync(join(facts, "facts.chat"));
  const r = report(d.path);
  // without it the Researcher's inferences are receipt-only (116+124+136+162 = 538),
  // still once each; the Librarian's nested log is still found by the directory scan
  assert.deepEqual(r.totals.deduplicated_total, ALL);
  assert.deepEqual(r.totals.receipt_only, T(454, 84));
  assert.deepEqual(readdirSync(join(facts, "facts", "society", "Librarian")), ["_oneshot-1.chat"]);
  // with its caller's log gone, the Librarian's log is shown under the job again
  const lib = r.displayEdges.find((e) => e.to.endsWith("_oneshot-1.chat"))!;
  assert.match(lib.from, /^job:.*Planner\/ask\//);
});

Deno.test("society run: the README's Agents section shows this very tree", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.ok(readme.includes("```text\n" + renderTree(report()) + "```\n"));
});
