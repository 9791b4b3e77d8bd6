/**
 * Delegation calls (`provenance.md` §7, `delegationCalls`): whom each `ask` /
 * `hand_off_to_*` call delegated to, its receipt, and its link —
 * structural (an `agent_job` edge), inferred (a society log path only, one-shot
 * logs included, agents.md §7.1) or none — on plain chats and on the society
 * fixture through `llm prov --tools --json`.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { delegationCalls, isDelegationTool, societyDirs } from "../../src/provenance/delegation.ts";
import { delegationLines } from "../../src/provenance/render_tool_calls.ts";
import { runMain } from "../support/cli.ts";

function call(name: string, args: unknown, id: string): Message {
  return { role: "function_call", content: JSON.stringify({ name, arguments: args, id }) };
}

function output(name: string, id: string, extra: Record<string, unknown> = {}): Message {
  return {
    role: "function_call_output",
    content: JSON.stringify({ name, content: "ok", id, ...extra }),
  };
}

const LOG = "/w/J.files/log";
const META = (s: string) => ({ role: "meta", content: s });

Deno.test("delegationCalls: target, conversation and receipt summary of ask and hand_off_to_* calls", () => {
  const chat: Message[] = [
    { role: "user", content: "go" },
    call("ask", { agent: "Critic", prompt: "ok?", conversation: "c1" }, "a"),
    output("ask", "a", {
      agent_meta: [META("pt=3 ct=1 tt=4 inference_id=i1"), "not a hash", META("job=Critic/ask/X")],
    }),
    // arguments as JSON text; no conversation
    call("ask", JSON.stringify({ agent: "Worker", prompt: "do" }), "b"),
    output("ask", "b"),
    call("hand_off_to_Critic", { message: "review" }, "h"),
    output("hand_off_to_Critic", "h", { agent_meta: 7 }),
    call("lookup", { q: 1 }, "l"),
    output("lookup", "l"),
    call("hand_off_to_", {}, "x"),
  ];
  const calls = delegationCalls(chat, `${LOG}/agent.chat`);
  assert.deepEqual(
    calls.map((c) => [c.tool, c.target, c.conversation, c.receipt, c.association]),
    [
      ["ask", "Critic", "c1", {
        entries: 2,
        jobs: ["Critic/ask/X"],
        inferenceIds: ["i1"],
        problems: 1,
      }, "none"],
      ["ask", "Worker", null, null, "none"],
      ["hand_off_to_Critic", "Critic", null, {
        entries: 0,
        jobs: [],
        inferenceIds: [],
        problems: 1,
      }, "none"],
    ],
  );
  assert.deepEqual(calls[0]!.callAddress, [`${LOG}/agent.chat`, 1]);
  assert.deepEqual(calls[0]!.outputAddress, [`${LOG}/agent.chat`, 2]);
  assert.equal(isDelegationTool("hand_off_to_"), false);
  assert.equal(isDelegationTool("lookup"), false);
});

Deno.test("delegationCalls: structural beats inferred; inferred needs the log of that agent and conversation", () => {
  const chat: Message[] = [
    call("ask", { agent: "Critic", prompt: "p", conversation: "c1" }, "a"),
    output("ask", "a", { agent_meta: [META("job=Critic/ask/X"), META("job=Critic/ask/Y")] }),
    call("ask", { agent: "Critic", prompt: "p", conversation: "c2" }, "b"),
    output("ask", "b"),
    call("ask", { agent: "Worker", prompt: "p" }, "c"),
    output("ask", "c"),
    call("hand_off_to_Worker", { message: "m" }, "d"),
    output("hand_off_to_Worker", "d"),
    call("ask", { agent: "../Critic", prompt: "p", conversation: "c1" }, "e"),
    output("ask", "e"),
    call("ask", { agent: "Worker", prompt: "p" }, "f"),
    output("ask", "f"),
    call("ask", { agent: "Worker", prompt: "p" }, "g"),
    output("ask", "g"),
    // no output (the run stopped): linked by its log all the same
    call("ask", { agent: "Critic", prompt: "p", conversation: "v1.2" }, "h"),
  ];
  const chats = [
    `${LOG}/society/Critic/c1.chat`,
    `${LOG}/society/Worker/_oneshot-1.chat`,
    `${LOG}/society/Worker/_oneshot-2.chat`,
    `${LOG}/society/Worker/default.chat`,
    `${LOG}/society/Critic/v1.2.chat`,
    `${LOG}/society/Worker/_oneshot-1/society/Critic/c2.chat`,
    `/elsewhere/society/Critic/c2.chat`,
  ];
  const calls = delegationCalls(chat, `${LOG}/agent.chat`, {
    chats,
    agentJobs: new Map([[1, ["/w/jobs/Critic/ask/X", "/w/jobs/Critic/ask/Y"]]]),
  });
  const W = `${LOG}/society/Worker/`;
  assert.deepEqual(calls.map((c) => [c.callId, c.logName, c.association, c.jobs, c.logs]), [
    ["a", "c1.chat", "structural", ["/w/jobs/Critic/ask/X", "/w/jobs/Critic/ask/Y"], [
      `${LOG}/society/Critic/c1.chat`,
    ]],
    // c2's only logs are in other societies: no link
    ["b", "c2.chat", "none", [], []],
    // the n-th ask without a conversation pairs with _oneshot-<n>, never a named conversation
    ["c", "_oneshot-1.chat", "inferred", [], [`${W}_oneshot-1.chat`]],
    // a hand-off is logged as default.chat, never as a one-shot
    ["d", "default.chat", "inferred", [], [`${W}default.chat`]],
    // a name with a path in it is no valid call: nothing ran, nothing links
    ["e", null, "none", [], []],
    ["f", "_oneshot-2.chat", "inferred", [], [`${W}_oneshot-2.chat`]],
    // no third one-shot log: the Ruby's reading of an omitted conversation, default.chat
    ["g", "_oneshot-3.chat", "inferred", [], [`${W}default.chat`]],
    ["h", "v1.2.chat", "inferred", [], [`${LOG}/society/Critic/v1.2.chat`]],
  ]);
  assert.deepEqual(calls.at(-1)!.outputAddress, null);
  assert.equal(calls.at(-1)!.receipt, null);
});

Deno.test("delegationCalls: arguments read as the ask tool reads them (legacy chat, invalid calls)", () => {
  const chat: Message[] = [
    call("ask", { agent: "Worker", prompt: "p", chat: "c1" }, "a"),
    call("ask", { agent: "Worker", prompt: "p", chat: "none" }, "b"),
    call("ask", { agent: "Worker", prompt: "p", chat: "current" }, "c"),
    // rejected by the tool (non-string conversation, both chat and conversation, no prompt)
    call("ask", { agent: "Worker", prompt: "p", conversation: 7 }, "d"),
    call("ask", { agent: "Worker", prompt: "p", chat: "c1", conversation: "c1" }, "e"),
    call("ask", { agent: "Worker" }, "f"),
    call("ask", "not json", "g"),
  ];
  const logs = ["c1", "_oneshot-1", "current", "default"].map((c) =>
    `${LOG}/society/Worker/${c}.chat`
  );
  const calls = delegationCalls(chat, `${LOG}/agent.chat`, { chats: logs });
  assert.deepEqual(calls.map((c) => [c.target, c.conversation, c.logName, c.association]), [
    ["Worker", "c1", "c1.chat", "inferred"],
    ["Worker", null, "_oneshot-1.chat", "inferred"],
    ["Worker", "current", "current.chat", "inferred"],
    ["Worker", null, null, "none"],
    ["Worker", null, null, "none"],
    ["Worker", null, null, "none"],
    [null, null, null, "none"],
  ]);
});

Deno.test("delegationCalls: relative paths, and nothing known without a walk's links", () => {
  const chat: Message[] = [call("ask", { agent: "A", prompt: "p" }, "a"), output("ask", "a")];
  assert.deepEqual(
    delegationCalls(chat, "agent.chat", { chats: ["society/A/_oneshot-1.chat"] })[0]!.logs,
    ["society/A/_oneshot-1.chat"],
  );
  assert.equal(delegationCalls(chat, "agent.chat")[0]!.association, "none");
});

Deno.test("societyDirs: a society log's own society, an agent.chat's sibling, else the related jobs' logs", () => {
  assert.deepEqual(societyDirs(`${LOG}/society/Researcher/facts.chat`), [
    `${LOG}/society/Researcher/facts/society/`,
  ]);
  assert.deepEqual(societyDirs(`${LOG}/round-1/agent.chat`, ["/w/K"]), [
    `${LOG}/round-1/society/`,
  ]);
  assert.deepEqual(societyDirs("/w/session.chat", ["/w/J", "/w/K", "/w/J"]), [
    "/w/J.files/log/society/",
    "/w/K.files/log/society/",
  ]);
  assert.deepEqual(societyDirs("/w/session.chat"), []);
});

Deno.test("llm prov --tools --json on the society fixture: each delegation call linked as recorded", async () => {
  const root = "fixtures/provenance/society";
  const r = await runMain(
    ["llm", "prov", `${root}/plan.chat`, "--jobs-dir", `${root}/jobs`, "--tools", "--json"],
    { env: { NO_COLOR: "1" } },
  );
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as {
    calls: {
      tool: string;
      chat: string;
      agent: string | null;
      delegation: { target: string; association: string; jobs: string[]; logs: string[] } | null;
    }[];
  };
  const short = (p: string) => p.replace(/^.*\/(jobs\/)/, "$1");
  const rows = doc.calls.filter((c) => c.delegation !== null).map((c) => [
    c.agent,
    c.tool,
    c.delegation!.target,
    c.delegation!.association,
    [...c.delegation!.jobs, ...c.delegation!.logs].map(short),
  ]);
  const PLANNER = "jobs/Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat";
  const CRITIC = "jobs/Critic/ask/Default_7306c721a4a0b9b93a429f47ef56241b.chat";
  const facts = `${PLANNER}.files/log/society/Researcher/facts.chat`;
  const planner = [
    ["ask", "Researcher", "inferred", [facts]],
    ["ask", "Researcher", "inferred", [facts]],
    // structural, and the delegate's log is listed too
    ["hand_off_to_Critic", "Critic", "structural", [
      CRITIC,
      `${PLANNER}.files/log/society/Critic/default.chat`,
    ]],
  ];
  assert.deepEqual(rows, [
    // the session's copies link through the Planner job it projects (`meta job=`)
    ...planner.map((r) => [null, ...r]),
    // the Planner's log: its sibling society/
    ...planner.map((r) => ["Planner", ...r]),
    // the Researcher's own one-shot ask: its nested society
    ["Researcher", "ask", "Librarian", "inferred", [
      `${PLANNER}.files/log/society/Researcher/facts/society/Librarian/_oneshot-1.chat`,
    ]],
    // the Planner job's result: the job's log/society/
    ...planner.map((r) => ["Planner", ...r]),
  ]);
  assert.ok(doc.calls.filter((c) => c.delegation === null).every((c) => c.tool !== "ask"));
});

Deno.test("the --tools delegation section: one escaped line per call, columns bounded, extra links counted", () => {
  const hostile = "Evil\u001b[31m\nAgent".repeat(10);
  const base = {
    tool: "ask",
    callId: "a",
    chat: "/w/s.chat",
    job: null,
    agent: { agent: "Boss", conversation: null, from: "none" as const },
    callAddress: ["/w/s.chat", 0] as [string, number],
    outputAddress: null,
    arguments: {},
    status: "ok" as const,
    reason: "output",
    exception: null,
    exitStatus: null,
    durationMs: null,
    copyKey: "k#0",
  };
  const link = (target: string, association: "structural" | "inferred", links: string[]) => ({
    target,
    conversation: null,
    logName: null,
    receipt: null,
    association,
    jobs: association === "structural" ? links : [],
    logs: association === "inferred" ? links : [],
  });
  const lines = delegationLines([
    { ...base, delegation: link(hostile, "inferred", ["/w/a.chat", "/w/b.chat"]) },
    {
      ...base,
      delegation: link("Critic", "structural", ["/w/jobs/J1", "/w/jobs/J2", "/w/jobs/J3"]),
    },
    { ...base, tool: "lookup", delegation: null },
  ], "/w");
  assert.equal(lines.length, 4);
  // deno-lint-ignore no-control-regex
  for (const l of lines) assert.doesNotMatch(l, /[\u0000-\u001f]/);
  assert.match(
    lines[2]!,
    /^ {2}Boss → Evil\\u001b\[31m\\nA.*….*Agent +inferred +a\.chat \(\+1\)$/,
  );
  assert.match(lines[3]!, /^ {2}Boss → Critic +structural +jobs\/J1 \(\+2\)$/);
  assert.ok(lines[2]!.indexOf("inferred") <= 2 + 48 + 2, lines[2]);
});

Deno.test("delegationCalls: a one-shot output's recorded conversation names its log; without one, the count", () => {
  const chat: Message[] = [
    call("ask", { agent: "A", prompt: "p" }, "a"),
    output("ask", "a", { conversation: "_oneshot-4" }),
    call("ask", { agent: "A", prompt: "q" }, "b"),
    output("ask", "b"), // written by Ruby, or before the port recorded it: the 2nd such call
    call("ask", { agent: "A", prompt: "r" }, "c"),
    output("ask", "c", { conversation: "../x" }), // not a one-shot name: ignored
  ];
  const logs = ["_oneshot-4", "_oneshot-2", "_oneshot-3"].map((c) => `${LOG}/society/A/${c}.chat`);
  const calls = delegationCalls(chat, `${LOG}/agent.chat`, { chats: logs });
  assert.deepEqual(calls.map((c) => [c.logName, c.logs.length]), [
    ["_oneshot-4.chat", 1],
    ["_oneshot-2.chat", 1],
    ["_oneshot-3.chat", 1],
  ]);
});

Deno.test("delegationCalls: a hand-off after new_conversation links to the _default-<n> log its output records (R82-2)", () => {
  const chat: Message[] = [
    call("hand_off_to_W", { message: "a" }, "a"),
    output("hand_off_to_W", "a"),
    call("hand_off_to_W", { message: "b", new_conversation: true }, "b"),
    output("hand_off_to_W", "b", { conversation: "_default-2" }),
    call("hand_off_to_W", { message: "c" }, "c"),
    output("hand_off_to_W", "c", { conversation: "c1" }), // not a hand-off's name: ignored
  ];
  const logs = ["default", "_default-2"].map((c) => `${LOG}/society/W/${c}.chat`);
  const calls = delegationCalls(chat, `${LOG}/agent.chat`, { chats: logs });
  assert.deepEqual(calls.map((c) => [c.logName, c.logs]), [
    ["default.chat", [logs[0]]],
    ["_default-2.chat", [logs[1]]],
    ["default.chat", [logs[0]]],
  ]);
});
