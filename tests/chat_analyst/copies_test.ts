/**
 * ChatAnalyst counts each tool call once, as `llm prov --tools` does since
 * R111-4: a chat-task job's calls are in its log, its result chat and the
 * session its answer was projected into, and `chat_tool_calls` counted every
 * copy — one failing tool read as 3 failures in its summary, in
 * `chat_report`'s calls by tool and its failed list — and `chat_report`
 * counted each delegation once per copy. The per-chat listing keeps every
 * copy; each call names its `copyKey` and the copy it is counted as
 * (`copyOf`). A result cached before is not read with the new meaning: the
 * schema version is part of the walk's job identity. Real files in temp
 * dirs, the CLI in-process.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { COPIED_JOB, copiedAnswer } from "../provenance/support.ts";
import { createJob } from "../../src/workflow/job.ts";
import { input, registerWorkflow, workflow } from "../../src/workflow/define.ts";
import { chatAnalystWorkflow } from "../../src/chat_analyst/workflow.ts";

type Address = [string, number];
type Call = {
  tool: string;
  callIndex: number;
  status: string;
  copyKey: string;
  copyOf: Address | null;
};
type Group = { chat: string; agent: string | null; calls: Call[] };

async function analyst(home: string, task: string, root: string, jobs: string, json = true) {
  const r = await runMain(
    [
      "workflow",
      "task",
      "ChatAnalyst",
      task,
      "--file",
      root,
      "--jobs_dir",
      jobs,
      ...(json ? ["--json"] : []),
    ],
    { env: { SCOUT_HOME: home, NO_COLOR: "1" } },
  );
  assert.equal(r.code, 0, r.stderr);
  return json ? JSON.parse(r.stdout).result : r.stdout;
}

/** The section of a Markdown report from `## title` to the next section. */
function section(report: string, title: string): string {
  const from = report.indexOf(`\n## ${title}\n`);
  const to = report.indexOf("\n## ", from + 1);
  return report.slice(from, to === -1 ? undefined : to).trim();
}

Deno.test("ChatAnalyst: a call held in a job's log, result and the session is counted once", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const { root, jobs } = copiedAnswer(dir.path);
  const res = await analyst(home, "chat_tool_calls", root, jobs);
  assert.equal(res.version, 3);
  assert.deepEqual(res.summary, { calls: 2, ok: 1, error: 1, missing_output: 0, copies: 6 });
  const log = join(jobs, `${COPIED_JOB}.files/log/agent.chat`);
  const result = join(jobs, COPIED_JOB);
  const groups = res.chats as Group[];
  // every copy is listed where it was found; each is counted as the log's (it names the agent)
  assert.deepEqual(
    groups.map((g) => [g.chat, g.agent, g.calls.map((c) => [c.tool, c.status, c.copyOf])]),
    [
      [root, null, [["schedule", "error", [log, 3]], ["lookup", "ok", [log, 5]]]],
      [log, "Planner", [["schedule", "error", null], ["lookup", "ok", null]]],
      [result, "Planner", [["schedule", "error", [log, 3]], ["lookup", "ok", [log, 5]]]],
    ],
  );
  const keys = groups.map((g) => g.calls.map((c) => c.copyKey));
  assert.match(keys[0]![0]!, /^[0-9a-f]{64}#0$/);
  assert.deepEqual(keys[1], keys[0]);
  assert.deepEqual(keys[2], keys[0]);
  assert.notEqual(keys[0]![0], keys[0]![1]);

  const report = await analyst(home, "chat_report", root, jobs, false) as string;
  assert.equal(
    section(report, "Tool calls"),
    [
      "## Tool calls",
      "",
      "2 calls: 1 ok, 1 error, 0 missing output (6 copies in 3 chats, each call counted once).",
      "",
      "| tool | calls | ok | error | missing output |",
      "|---|---|---|---|---|",
      "| lookup | 1 | 1 | 0 | 0 |",
      "| schedule | 1 | 0 | 1 | 0 |",
      "",
      "Failed or unanswered calls:",
      "",
      "| tool | agent | status | exception |",
      "|---|---|---|---|",
      "| schedule | Planner | error | boom |",
    ].join("\n"),
  );
});

Deno.test("ChatAnalyst: the recorded society run counts calls and delegations as llm prov --tools", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const root = join(ROOT, "fixtures/provenance/society/plan.chat");
  const jobs = join(ROOT, "fixtures/provenance/society/jobs");
  const prov = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--tools", "--json"], {
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
  });
  const doc = JSON.parse(prov.stdout);
  const res = await analyst(home, "chat_tool_calls", root, jobs);
  const { copies, ...summary } = res.summary;
  assert.deepEqual(summary, doc.summary);
  assert.deepEqual([summary.calls, copies], [6, 14]);
  // the copies counted are the rows the --tools table shows
  type Row = { callAddress: Address; copyOf: number | null; delegation: unknown };
  const shown = (doc.calls as Row[]).filter((c) => c.copyOf === null);
  const counted = (res.chats as Group[]).flatMap((g) =>
    g.calls.filter((c) => c.copyOf === null).map((c) => [g.chat, c.callIndex])
  );
  assert.deepEqual(counted, shown.map((c) => c.callAddress));
  // chat_agents keeps a row per copy and names the one counted: the table's delegations
  const agents = await analyst(home, "chat_agents", root, jobs);
  const ds = agents.delegations as { copyOf: Address | null; callAddress: Address }[];
  const kept = ds.filter((d) => d.copyOf === null).map((d) => d.callAddress);
  assert.equal(ds.length, 10);
  assert.deepEqual(kept, shown.filter((c) => c.delegation !== null).map((c) => c.callAddress));
  const keys = new Set(kept.map((a) => JSON.stringify(a)));
  for (const d of ds) assert.ok(d.copyOf === null || keys.has(JSON.stringify(d.copyOf)));
  const report = await analyst(home, "chat_report", root, jobs, false) as string;
  assert.match(
    report,
    /\n6 calls: 6 ok, 0 error, 0 missing output \(14 copies in 4 chats, each call counted once\)\./,
  );
  assert.match(
    report,
    /\| ask \| 3 \| 3 \| 0 \| 0 \|\n\| hand_off_to_Critic \| 1 \| 1 \| 0 \| 0 \|/,
  );
  const delegations = section(report, "Delegations").split("\n");
  assert.equal(
    delegations[2],
    "4 delegations: 1 with a receipt (structural), 3 matched to a log by name only (inferred), 0 unknown.",
  );
  assert.equal(delegations.filter((l) => /^\| (Planner|Researcher|-) \|/.test(l)).length, 4);
});

/**
 * The job `chat_tool_calls` had before its results counted each call once:
 * the same workflow, task and input names, without the walk's schema
 * version in `chat_provenance`'s identity.
 */
function earlierJobPath(home: string, root: string, jobs: string): string {
  const inputs = { file: input.file({ required: true }), jobs_dir: input.array({ default: [] }) };
  const earlier = workflow("ChatAnalyst", {
    tasks: {
      chat_provenance: { type: "json", inputs, run: () => ({}) },
      chat_tool_calls: { type: "json", inputs, deps: ["chat_provenance"], run: () => ({}) },
    },
  });
  try {
    return createJob(earlier, "chat_tool_calls", {
      inputs: { file: root, jobs_dir: [jobs] },
      env: { SCOUT_HOME: home },
    }).path;
  } finally {
    registerWorkflow(chatAnalystWorkflow()); // `workflow` registered the earlier one by name
  }
}

Deno.test("ChatAnalyst: a chat_tool_calls result cached before (copies counted) is not read as calls", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const { root, jobs } = copiedAnswer(dir.path);
  const stale = earlierJobPath(home, root, jobs);
  mkdirSync(dirname(stale), { recursive: true });
  writeFileSync(
    stale,
    JSON.stringify({
      schema: "scout-ai/chat-analyst",
      version: 1,
      task: "chat_tool_calls",
      summary: { calls: 6, ok: 4, error: 2, missing_output: 0 },
      chats: [],
      warnings: [],
    }),
  );
  writeFileSync(`${stale}.info`, JSON.stringify({ status: "done" }));
  const res = await analyst(home, "chat_tool_calls", root, jobs);
  // (the earlier code read this one back: summary {calls: 6, ok: 4, error: 2})
  assert.deepEqual(res.summary, { calls: 2, ok: 1, error: 1, missing_output: 0, copies: 6 });
  assert.equal(res.version, 3);
  // the walk named for another version makes none of this one's results
  const other = await runMain(
    ["workflow", "task", "ChatAnalyst", "chat_provenance", "--file", root, "--schema_version", "1"],
    { env: { SCOUT_HOME: home, NO_COLOR: "1" } },
  );
  assert.equal(other.code, 1);
  assert.match(other.stderr, /makes results of schema version 3, not "1"/);
});
