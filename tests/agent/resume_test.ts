/**
 * `resumed` (a named conversation rebuilt from the caller's chat): the
 * conversation starts at its first call, answered or not; only answered turns
 * are replayed; other agents' and other conversations' calls are left out.
 */
import assert from "node:assert/strict";
import { createAgent } from "../../src/agent/agent.ts";
import { resumed } from "../../src/agent/resume.ts";
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
  // a chat written before outputs named their conversation: from the first answered call
  const old = chat.map((m) =>
    m.role === "function_call_output"
      ? { ...m, content: String(m.content).replace(/,"conversation":"facts"/, "") }
      : m
  );
  const legacy = createAgent({ name: "Boss", startChat: start, currentChat: old });
  seen.length = 0;
  resumed(legacy, "Worker", "facts", (mode, c) => (seen.push({ mode, chat: c }), []));
  assert.deepEqual(seen.map((s) => s.chat.length), [7]);
});
