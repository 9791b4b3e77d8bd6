/**
 * `llm prov --tools` counts each call once (R111-4): a chat-task job's
 * calls are found in the chat its answer is projected into, in the job's
 * result chat and in its log — three copies of one call, which the table
 * listed three times and the summary counted three times ("3 error" for one
 * failed tool). The table lists each call once with how many chats hold a
 * copy; `--json` keeps a row per copy (`copyOf` names the row the table
 * shows) and its summary counts calls as the table does. A call run again
 * (its own output) and calls alike within one chat stay as many calls.
 * Real files in temp dirs, the real CLI; the recorded society run too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import { provenanceToolCalls } from "../../src/provenance/tool_calls.ts";
import { distinctToolCalls } from "../../src/provenance/tool_call_copies.ts";
import { runMain, tempDir } from "../support/cli.ts";
import {
  COPIED_JOB,
  copiedAnswer,
  mkJob,
  PLANNER_ANSWER,
  toolCall,
  toolOutput,
  write,
} from "./support.ts";

/** `llm prov ROOT --tools [--jobs-dir JOBS] [--json]` with a SCOUT_HOME in `dir`. */
async function tools(dir: string, root: string, jobs: string | null, json = false) {
  const args = ["llm", "prov", root, "--tools", ...(jobs === null ? [] : ["--jobs-dir", jobs])];
  const r = await runMain([...args, ...(json ? ["--json"] : [])], {
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

Deno.test("R111-4: llm prov --tools lists and counts a call once, however many chats hold a copy", async () => {
  await using dir = await tempDir();
  const { root, jobs } = copiedAnswer(dir.path);
  const lines = (await tools(dir.path, root, jobs)).trimEnd().split("\n");
  assert.deepEqual(lines.map((l) => l.replace(/ +/g, " ")), [
    "TOOL AGENT STATUS DURATION COPIES ARGUMENTS",
    'schedule Planner error 1ms 3 {"bakes":["boom"]}',
    'lookup Planner ok 250ms 3 {"topic":"flour"}',
    "2 calls: 1 ok, 1 error, 0 missing output (6 copies in 3 chats, each call counted once)",
  ]);
  const doc = JSON.parse(await tools(dir.path, root, jobs, true));
  assert.deepEqual(doc.summary, { calls: 2, ok: 1, error: 1, missing_output: 0 });
  // a row per copy, as before: the session's, then the log's (shown: it names the agent), the result's
  const log = join(jobs, `${COPIED_JOB}.files/log/agent.chat`);
  assert.deepEqual(
    doc.calls.map((c: { tool: string; chat: string; copyOf: number | null }) => [
      c.tool,
      c.chat,
      c.copyOf,
    ]),
    [
      ["schedule", root, 2],
      ["lookup", root, 3],
      ["schedule", log, null],
      ["lookup", log, null],
      ["schedule", join(jobs, COPIED_JOB), 2],
      ["lookup", join(jobs, COPIED_JOB), 3],
    ],
  );
});

Deno.test("R111-4: a call run again, and calls alike within one chat, are as many calls", async () => {
  await using dir = await tempDir();
  const jobs = join(dir.path, "jobs");
  // the same call (id, arguments) run twice: two outputs, each with its own timestamps
  const first = [
    toolCall("lookup", { topic: "flour" }, "c1"),
    toolOutput("lookup", "c1", "bread", "24.100"),
  ];
  const again = [
    toolCall("lookup", { topic: "flour" }, "c1"),
    toolOutput("lookup", "c1", "bread", "25.200"),
  ];
  const marker: Message = { role: "meta", content: `job=${COPIED_JOB}` };
  // two calls alike in one chat (no timestamps): two calls; a copy of that chat holds both again
  const twice = [
    toolCall("ls", {}, "d"),
    {
      role: "function_call_output",
      content: JSON.stringify({ name: "ls", content: "a", id: "d" }),
    },
    toolCall("ls", {}, "d"),
    {
      role: "function_call_output",
      content: JSON.stringify({ name: "ls", content: "a", id: "d" }),
    },
  ];
  mkJob(
    join(jobs, COPIED_JOB),
    null,
    { "agent.chat": print([{ role: "user", content: "q" }, ...again, ...twice]) },
    { workflow: "Planner", task_name: "ask", type: "chat" },
    print([marker, ...again, ...twice]),
  );
  const root = write(
    join(dir.path, "s.chat"),
    print([{ role: "user", content: "q" }, ...first, marker]),
  );
  const { calls } = provenanceToolCalls(root, { jobRoots: [jobs] });
  assert.equal(calls.length, 7);
  const distinct = distinctToolCalls(calls);
  assert.deepEqual(
    distinct.map((d) => [calls[d.shown]!.tool, calls[d.shown]!.durationMs, d.copies.length]),
    [["lookup", 100, 1], ["lookup", 1200, 2], ["ls", null, 2], ["ls", null, 2]],
  );
  const text = await tools(dir.path, root, jobs);
  assert.match(text, /\n4 calls: 4 ok, 0 error, 0 missing output \(7 copies in 3 chats, /);
  assert.deepEqual(JSON.parse(await tools(dir.path, root, jobs, true)).summary, {
    calls: 4,
    ok: 4,
    error: 0,
    missing_output: 0,
  });
});

Deno.test("R111-4: the recorded society run: 6 calls, not 14; one delegation line per call", async () => {
  await using dir = await tempDir();
  const root = "fixtures/provenance/society";
  const text = await tools(dir.path, `${root}/plan.chat`, `${root}/jobs`);
  assert.match(text, /\n6 calls: 6 ok, 0 error, 0 missing output \(14 copies in 4 chats, /);
  const delegations = text.slice(text.indexOf("\nDelegations")).trim().split("\n").slice(1);
  assert.deepEqual(delegations.map((l) => l.trim().split(/ {2,}/).slice(0, 2)), [
    ["Planner → Researcher · facts", "inferred"],
    ["Planner → Researcher · facts", "inferred"],
    ["Planner → Critic", "structural"],
    ["Researcher · facts → Librarian", "inferred"],
  ]);
  const doc = JSON.parse(await tools(dir.path, `${root}/plan.chat`, `${root}/jobs`, true));
  assert.deepEqual(doc.summary, { calls: 6, ok: 6, error: 0, missing_output: 0 });
  assert.equal(doc.calls.length, 14, "a row per copy, as before");
  assert.equal(doc.calls.filter((c: { copyOf: number | null }) => c.copyOf === null).length, 6);
});

Deno.test("R111-4: a walk without copies keeps its table as it was (no COPIES column)", async () => {
  await using dir = await tempDir();
  const root = write(
    join(dir.path, "s.chat"),
    print([{ role: "user", content: "q" }, ...PLANNER_ANSWER]),
  );
  const lines = (await tools(dir.path, root, null)).trimEnd().split("\n");
  assert.match(lines[0]!, /^TOOL +AGENT +STATUS +DURATION +ARGUMENTS$/);
  assert.equal(lines.at(-1), "2 calls: 1 ok, 1 error, 0 missing output");
});
