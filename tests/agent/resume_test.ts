/**
 * `resumed` (a named conversation rebuilt from the caller's chat): the
 * conversation starts at its first call, answered or not; only answered turns
 * are replayed; other agents' and other conversations' calls are left out; a
 * hand-off's conversation likewise (`resumedHandOff`).
 */
import assert from "node:assert/strict";
import { createAgent } from "../../src/agent/agent.ts";
import { handOffRestarts, resumed, resumedHandOff, turnStart } from "../../src/agent/resume.ts";
import type { Message } from "../../src/chat/types.ts";

const call = (id: string, args: Record<string, unknown>): Message => ({
  role: "function_call",
  content: JSON.stringify({ name: "ask", arguments: args, id }),
});
const output = (id: string, content: string, extra: Record<string, unknown> = {}): Message => ({
  role: "function_call_output",
  content: JSON.stringify({ name: "ask", content, id, ...extra }),
});

Deno.test("resumed: from the first call that ran in it (failed too), answered turns only, this agent and id only", () => {
  const start: Message[] = [{ role: "system", content: "You are Boss" }];
  const facts = { agent: "Worker", conversation: "facts", inherit: "conversation" };
  const chat: Message[] = [
    ...start,
    { role: "user", content: "the oven" },
    // refused before the conversation existed (no agent yet): its output names no conversation
    call("c0", { ...facts, prompt: "zeroth" }),
    output("c0", '{"exception":"Cannot load agent Worker"}', { error: "error" }),
    { role: "user", content: "try again" },
    // ran in the conversation and failed: the conversation began here
    call("c1", { ...facts, prompt: "first" }),
    output("c1", '{"exception":"HTTP 400"}', { error: "error", conversation: "facts" }),
    { role: "user", content: "and now" },
    call("c2", { ...facts, prompt: "again" }),
    output("c2", "noted: again", { conversation: "facts" }),
    call("c3", { agent: "Other", conversation: "facts", prompt: "x" }),
    output("c3", "other"),
    call("c4", { agent: "Worker", conversation: "misc", prompt: "y" }),
    output("c4", "misc"),
    { role: "user", content: "the flour" },
  ];
  const boss = createAgent({ name: "Boss", startChat: start, currentChat: chat });
  const seen: { mode: string; chat: readonly Message[] }[] = [];
  const got = resumed(boss, "Worker", "facts", (mode, c) => {
    seen.push({ mode, chat: c });
    return [{ role: "user", content: `inherited ${c.length}` }];
  });
  // inherited as the conversation started: before the first call that ran in it (failed)
  assert.deepEqual(seen.map((s) => [s.mode, s.chat.length]), [["conversation", 5]]);
  assert.deepEqual(got, [
    { role: "user", content: "inherited 5" },
    { role: "user", content: "again" },
    { role: "assistant", content: "noted: again" },
  ]);
  assert.equal(resumed(boss, "Worker", "none-such", () => []), null);
  // a chat written before outputs named their conversation: from the turn of the first answered
  // call (after its question)
  const old = chat.map((m) =>
    m.role === "function_call_output"
      ? { ...m, content: String(m.content).replace(/,"conversation":"facts"/, "") }
      : m
  );
  const legacy = createAgent({ name: "Boss", startChat: start, currentChat: old });
  seen.length = 0;
  resumed(legacy, "Worker", "facts", (mode, c) => (seen.push({ mode, chat: c }), []));
  assert.deepEqual(seen.map((s) => s.chat.length), [8]);
});

Deno.test("turnStart: the caller's chat as it stood when the turn holding a call began", () => {
  const m = (role: string, content = role): Message => ({ role, content });
  const chats: [Message[], number][] = [
    // later rounds' metas follow tool outputs; the first round's follows the question
    [[
      m("system"),
      m("user"),
      m("meta"),
      m("function_call"),
      m("function_call_output"),
      m("meta"),
      m("function_call"),
    ], 2],
    // a reply with text and calls; the calls of the same reply before the ask
    [[
      m("user"),
      m("meta"),
      m("assistant"),
      m("function_call"),
      m("function_call"),
      m("function_call"),
    ], 1],
    // no question: the turn after the previous one's answer (and its response id)
    [[m("user"), m("meta"), m("assistant"), m("meta"), m("function_call")], 3],
    [[
      m("user"),
      m("meta"),
      m("assistant"),
      m("previous_response_id"),
      m("meta"),
      m("function_call"),
    ], 4],
    // the task route: the job's marker begins the turn's projected output (no token metas)
    [[
      m("user"),
      m("meta", "job=W/ask/x"),
      m("function_call"),
      m("function_call_output"),
      m("function_call"),
    ], 1],
    // no meta records at all: after the question
    [[
      m("user"),
      m("assistant"),
      m("user"),
      m("function_call"),
      m("function_call_output"),
      m("function_call"),
    ], 3],
    [[m("function_call")], 0],
    // the limit (R107-6, docs/spec-notes/agents-core.md §3.3–§3.4): a turn with no question after
    // one cut on its tool outputs (tool_loop_limit) is read as a later round of the cut one (it
    // began at 4), and a retried attempt's record before a round's meta as a failed turn's end
    // (the turn began at 1): the saved chat has nothing to tell them apart
    [[
      m("user"),
      m("meta"),
      m("function_call"),
      m("function_call_output"),
      m("meta"),
      m("function_call"),
    ], 1],
    [[
      m("user"),
      m("meta"),
      m("function_call"),
      m("function_call_output"),
      m("meta", "pt=2 inference_id=r incomplete=true reason=timeout"),
      m("meta"),
      m("function_call"),
    ], 5],
  ];
  for (const [chat, start] of chats) {
    assert.equal(turnStart(chat, chat.length - 1), start, chat.map((x) => x.role).join(" "));
  }
});

Deno.test("resumed: each answer after its last receipt; a conversation begun and never answered still began", () => {
  const start: Message[] = [{ role: "system", content: "You are Boss" }];
  const w = { agent: "Worker", conversation: "w" };
  const own = "pt=3 pt_c=6 inference_id=i2";
  const chat: Message[] = [
    ...start,
    { role: "user", content: "q" },
    { role: "meta", content: "pt=1" },
    call("c1", { ...w, prompt: "first" }),
    output("c1", "one", {
      conversation: "w",
      agent_meta: [{ role: "meta", content: "pt=3 pt_c=3 inference_id=i1" }, {
        role: "meta",
        content: "pt=9 pt_c=9 inference_id=nested",
      }, { role: "meta", content: own }],
    }),
    call("c2", { ...w, conversation: "v", prompt: "lost" }),
    output("c2", '{"exception":"HTTP 400"}', { error: "error", conversation: "v" }),
  ];
  const boss = createAgent({ name: "Boss", startChat: start, currentChat: chat });
  const inheritedAt = (
    _: unknown,
    c: readonly Message[],
  ) => [{ role: "user", content: `${c.length}` }];
  assert.deepEqual(resumed(boss, "Worker", "w", inheritedAt), [
    { role: "user", content: "2" },
    { role: "user", content: "first" },
    { role: "meta", content: own },
    { role: "assistant", content: "one" },
  ]);
  assert.deepEqual(resumed(boss, "Worker", "v", inheritedAt), [{ role: "user", content: "2" }]);
});

const handOff = (id: string, args: Record<string, unknown>, tool = "hand_off_to_Editor") => ({
  call: { role: "function_call", content: JSON.stringify({ name: tool, arguments: args, id }) },
  output: (content: string, extra: Record<string, unknown> = {}): Message => ({
    role: "function_call_output",
    content: JSON.stringify({ name: tool, content, id, ...extra }),
  }),
});

Deno.test("resumedHandOff: the conversation the last call that ran recorded, its answered turns only (R131-4)", () => {
  const a = handOff("h1", { message: "one" });
  const b = handOff("h2", { message: "two", new_conversation: true });
  const c = handOff("h3", { message: "three" });
  const d = handOff("h4", { message: "four" });
  const e = handOff("h5", { message: "five", new_conversation: true });
  const other = handOff("o1", { message: "elsewhere" }, "send_to_Editor");
  const meta = (n: number) => ({ role: "meta", content: `pt=${n} inference_id=i${n}` });
  const chat: Message[] = [
    { role: "user", content: "go" },
    a.call,
    a.output("answer one", { agent_meta: [meta(1)] }),
    b.call,
    b.output("answer two", { conversation: "_default-2", agent_meta: [meta(2), meta(3)] }),
    // ran and failed in _default-2: not replayed
    c.call,
    c.output('{"exception":"HTTP 400"}', { error: "error", conversation: "_default-2" }),
    // refused before it ran (no conversation recorded): in none
    e.call,
    e.output('{"exception":"its turn is still running"}', { error: "error" }),
    d.call,
    d.output("answer four", { conversation: "_default-2" }),
    other.call,
    other.output("other answer"),
  ];
  const boss = createAgent({ name: "Boss", startChat: [], currentChat: chat });
  assert.deepEqual(resumedHandOff(boss, "hand_off_to_Editor"), {
    conversation: "_default-2",
    messages: [
      { role: "user", content: "two" },
      meta(3),
      { role: "assistant", content: "answer two" },
      { role: "user", content: "four" },
      { role: "assistant", content: "answer four" },
    ],
  });
  assert.equal(handOffRestarts(chat, "hand_off_to_Editor"), 2);
  // another tool name is another hand-off: its conversation is default
  assert.deepEqual(resumedHandOff(boss, "send_to_Editor")?.conversation, "default");
  assert.equal(handOffRestarts(chat, "send_to_Editor"), 1);
  assert.equal(resumedHandOff(boss, "hand_off_to_Nobody"), null);
});

Deno.test("resumedHandOff: a chat an older scout-ai continued, its new_conversation recorded as default, starts at that call (R136-1)", () => {
  const [a, b, c] = [
    handOff("h1", { message: "one" }),
    handOff("h2", { message: "two", new_conversation: true }),
    handOff("h3", { message: "three" }),
  ];
  const chat: Message[] = [
    a.call,
    a.output("answer one"),
    b.call,
    b.output("answer two"), // the older process restarted without naming it _default-2
    c.call,
    c.output("answer three"),
  ];
  const boss = createAgent({ name: "Boss", startChat: [], currentChat: chat });
  assert.deepEqual(resumedHandOff(boss, "hand_off_to_Editor"), {
    conversation: "default",
    messages: [
      { role: "user", content: "two" },
      { role: "assistant", content: "answer two" },
      { role: "user", content: "three" },
      { role: "assistant", content: "answer three" },
    ],
  });
});
