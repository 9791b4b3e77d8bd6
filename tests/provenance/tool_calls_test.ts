/**
 * The tool-call report (`llm prov --tools`, issue 14 item 7) and the shared
 * pairing walk behind it (`src/provenance/tool_calls.ts`): status ok /
 * error / missing output, durations from timestamps, the agent from where a
 * chat lives, call ids scoped to one chat, hostile arguments escaped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import { provenanceToolCalls, shortenMiddle } from "../../src/provenance/tool_calls.ts";
import { durationText } from "../../src/provenance/render_tool_calls.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { mkJob, write } from "./support.ts";

const HOSTILE = 'say "hi"\n\x1b[31mred</script>--> \u2028end';

function call(name: string, args: unknown, id: string): Message {
  return { role: "function_call", content: JSON.stringify({ name, arguments: args, id }) };
}

function output(id: string, content: unknown, extra: Record<string, unknown> = {}): Message {
  return {
    role: "function_call_output",
    content: JSON.stringify({ name: "x", content, id, ...extra }),
  };
}

/** A session with five calls and a job whose logs (agent.chat, a society log) make more. */
function store(dir: string): { root: string; jobs: string } {
  const jobs = join(dir, "jobs");
  const job = mkJob(join(jobs, "Planner/ask/Default_abc"), null, {
    "agent.chat": print([
      { role: "user", content: "plan" },
      call("ask", { agent: "Critic", prompt: "review" }, "c1"),
      output("c1", "fine"),
    ]),
    "society/Critic/default.chat": print([
      { role: "user", content: "review" },
      call("read", { path: "plan.md" }, "c1"), // the same call id in another chat
      output("c1", "text", {
        start_timestamp: "2026-12-02T07:57:24.000Z",
        timestamp: "2026-12-02T07:57:25.250Z",
      }),
    ]),
  }, { workflow: "Planner", task_name: "ask", type: "chat" });
  const root = write(
    join(dir, "session.chat"),
    print([
      { role: "user", content: "go" },
      { role: "meta", content: `job=${job}` },
      call("grep", { cmd: HOSTILE }, "a"),
      output("a", "3 matches", {
        start_timestamp: "2026-12-02T07:57:24.323Z",
        timestamp: "2026-12-02T07:57:24.873Z",
      }),
      call("sh", { cmd: "false" }, "b"),
      output("b", JSON.stringify({ exit_status: 1, stderr: "" })),
      call("boom", {}, "c"),
      output("c", JSON.stringify({ exception: "Tool failed: disk full" }), { error: "error" }),
      call("never", { x: 1 }, "d"),
      call("sh", { cmd: "true" }, "e"),
      output("e", JSON.stringify({ exit_status: "0" })),
      { role: "assistant", content: "done" },
    ]),
  );
  return { root, jobs };
}

Deno.test("provenanceToolCalls: status, duration, agent and call ids scoped per chat", async () => {
  await using dir = await tempDir();
  const { root, jobs } = store(dir.path);
  const { calls, warnings } = provenanceToolCalls(root, { jobRoots: [jobs] });
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    calls.map((c) => [c.tool, c.agent.agent, c.agent.conversation, c.status, c.durationMs]),
    [
      ["grep", null, null, "ok", 550],
      ["sh", null, null, "error", null],
      ["boom", null, null, "error", null],
      ["never", null, null, "missing_output", null],
      ["sh", null, null, "ok", null],
      ["ask", "Planner", null, "ok", null],
      ["read", "Critic", "default", "ok", 1250],
    ],
  );
  assert.equal(calls[1]!.exitStatus, 1);
  assert.equal(calls[2]!.exception, "Tool failed: disk full");
  // c1 is paired inside each chat: both have an output, at their own addresses
  const [ask, read] = calls.slice(5);
  assert.equal(ask!.outputAddress![0], ask!.chat);
  assert.equal(read!.outputAddress![0], read!.chat);
  assert.notEqual(ask!.chat, read!.chat);
  assert.equal(ask!.job, join(jobs, "Planner/ask/Default_abc"));
  assert.equal(ask!.agent.from, "job");
  assert.equal(read!.agent.from, "society_log");
});

Deno.test("llm prov --tools: a table with tool, agent, status, duration and escaped, shortened arguments", async () => {
  await using dir = await tempDir();
  const { root, jobs } = store(dir.path);
  const r = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--tools"], {
    env: { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0]!, /^TOOL +AGENT +STATUS +DURATION +ARGUMENTS$/);
  assert.equal(lines.length, 12);
  assert.match(lines[1]!, /^grep +- +ok +550ms +\{"cmd":"say \\"hi\\"\\n\\u001b\[31m/);
  assert.match(lines[2]!, /^sh +- +error \(exit 1\) +- +\{"cmd":"false"\}$/);
  assert.match(lines[3]!, /^boom +- +error +- +\{\}$/);
  assert.match(lines[4]!, /^never +- +missing output +- +\{"x":1\}$/);
  assert.match(lines[7]!, /^read +Critic · default +ok +1\.3s +\{"path":"plan.md"\}$/);
  assert.equal(lines[8], "7 calls: 4 ok, 2 error, 1 missing output");
  // the delegation section: Planner's one-shot ask matches Critic's default log (inferred)
  assert.equal(lines[9], "");
  assert.match(lines[10]!, /^Delegations \(structural: /);
  assert.match(lines[11]!, /^ {2}Planner → Critic +inferred +\S+society\/Critic\/default\.chat$/);
  // nothing hostile reaches the terminal: no raw control characters or line separators
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(r.stdout.replaceAll("\n", ""), /[\u0000-\u001f\u2028]/);
  for (const l of lines) assert.ok(l.length <= 140, l);
});

Deno.test("llm prov --tools --json: the scout-ai/tool-calls document", async () => {
  await using dir = await tempDir();
  const { root, jobs } = store(dir.path);
  const r = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--tools", "--json"], {
    env: { SCOUT_HOME: join(dir.path, "home") },
  });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.schema, "scout-ai/tool-calls");
  assert.equal(doc.version, 1);
  assert.deepEqual(doc.summary, { calls: 7, ok: 4, error: 2, missing_output: 1 });
  const grep = doc.calls[0];
  assert.deepEqual(JSON.parse(grep.arguments), { cmd: HOSTILE }, "JSON keeps the exact text");
  const at = parse(readFileSync(root, "utf8")).findIndex((m) => m.role === "function_call");
  assert.deepEqual(grep.callAddress, [root, at]);
  assert.deepEqual(grep.outputAddress, [root, at + 1]);
  assert.equal(grep.durationMs, 550);
  assert.equal(doc.calls[3].outputAddress, null);
  assert.equal(doc.calls[3].reason, "missing_output");
  assert.equal(doc.calls[6].agent, "Critic");
  assert.equal(doc.calls[6].conversation, "default");
  assert.deepEqual(doc.warnings, []);
});

Deno.test("llm prov --tools reports unreadable evidence as warnings (exit 0)", async () => {
  await using dir = await tempDir();
  const root = write(
    join(dir.path, "s.chat"),
    print([{ role: "meta", content: "job=Gone/ask/Default_x" }, call("ls", {}, "z")]),
  );
  const r = await runMain(["llm", "prov", root, "--tools", "--json"], {
    env: { SCOUT_HOME: join(dir.path, "home") },
    cwd: dir.path,
  });
  assert.equal(r.code, 0);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.warnings.map((w: { code: string }) => w.code), ["unresolved_job_reference"]);
  assert.match(r.stderr, /warning: .*Gone\/ask\/Default_x/);
  assert.equal(doc.calls[0].status, "missing_output");
});

Deno.test("shortenMiddle keeps both ends and never exceeds the limit", () => {
  assert.equal(shortenMiddle("abcdef", 10), "abcdef");
  const s = shortenMiddle("a".repeat(50) + "END", 20);
  assert.equal(s.length, 20);
  assert.ok(s.startsWith("aaaa") && s.endsWith("END") && s.includes("…"));
});

Deno.test("tool calls paired with each chat's facts, also on the helper thread, equal the onChat pairing", async () => {
  const { provenanceReport } = await import("../../src/provenance/report.ts");
  const { toolCallCollector } = await import("../../src/provenance/tool_calls.ts");
  const { factsFromText, factsToText, readChatFacts } = await import(
    "../../src/provenance/chat_facts.ts"
  );
  await using dir = await tempDir();
  const { root, jobs } = store(dir.path);
  const viaChat = toolCallCollector();
  provenanceReport(root, { jobRoots: [jobs], onChat: viaChat.onChat });
  for (const helperThreshold of [Infinity, 0]) {
    const viaFacts = toolCallCollector();
    provenanceReport(root, {
      jobRoots: [jobs],
      toolCalls: true,
      onChatFacts: viaFacts.onFacts,
      helperThreshold, // 0: every chat is read on the helper thread
    });
    assert.deepEqual(viaFacts.calls(), viaChat.calls(), `helperThreshold ${helperThreshold}`);
    assert.equal(viaFacts.calls().length, 7);
  }
  // the helper's text form carries the calls
  const facts = readChatFacts(root, { toolCalls: true, detach: false });
  assert.ok(facts.toolCalls!.length > 0);
  assert.deepEqual(factsFromText(root, factsToText(facts)).toolCalls, facts.toolCalls);
  assert.equal(readChatFacts(root).toolCalls, undefined, "not asked: not paired");
});

Deno.test("llm prov --tools: a call over an hour reads in hours, not 60m02s (R163)", async () => {
  await using dir = await tempDir();
  const timed = (id: string, seconds: number) =>
    output(id, "done", {
      start_timestamp: "2026-12-02T00:00:00.000Z",
      timestamp: new Date(Date.parse("2026-12-02T00:00:00.000Z") + seconds * 1000).toISOString(),
    });
  const root = write(
    join(dir.path, "long.chat"),
    print([
      { role: "user", content: "go" },
      call("hour", {}, "a"),
      timed("a", 3_602),
      call("day", {}, "b"),
      timed("b", 86_400),
      call("minutes", {}, "c"),
      timed("c", 123),
      { role: "assistant", content: "done" },
    ]),
  );
  const r = await runMain(["llm", "prov", root, "--tools"], {
    env: { SCOUT_HOME: join(dir.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[1]!, /^hour +- +ok +1h00m02s +\{\}$/);
  assert.match(lines[2]!, /^day +- +ok +24h00m00s +\{\}$/);
  assert.match(lines[3]!, /^minutes +- +ok +2m03s +\{\}$/);
  // the edges: a tenth of a second short of a minute rounds up to one
  const cases: [number | null, string][] = [
    [null, "-"],
    [999, "999ms"],
    [1_000, "1.0s"],
    [59_940, "59.9s"],
    [59_960, "1m00s"],
    [3_599_400, "59m59s"],
    [3_599_600, "1h00m00s"],
  ];
  for (const [ms, text] of cases) assert.equal(durationText(ms), text, String(ms));
});
