/**
 * Token counters of specialists (`inference.md` §4.1/§4.3, `agents.md` §3.3
 * "sessions never flow to specialists"): the `_s` totals in a specialist's
 * meta records count its own inferences, never the caller's, and a nested
 * specialist's never its caller's; a continued conversation keeps its own.
 */
import assert from "node:assert/strict";
import { chat, current } from "../../src/agent/agent.ts";
import { loadAgent } from "../../src/agent/load.ts"; // also installs `socialize: true`
import { setSpecialistLoader, socialize } from "../../src/agent/socialize.ts";
import type { Message } from "../../src/chat/types.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { addTemplate, society } from "./delegation_support.ts";

/** `pt_s` and `pt_c` of each meta record of a chat. */
function counters(ms: readonly Message[] | null): string[] {
  return (ms ?? []).filter((m) => m.role === "meta").map((m) => {
    const c = String(m.content);
    return `${/\bpt_s=(\d+)/.exec(c)?.[1]}/${/\bpt_c=(\d+)/.exec(c)?.[1]}`;
  });
}

Deno.test("a specialist's pt_s counts its own inferences, not its caller's (one-shot, continued, nested)", async () => {
  await using s = await society();
  // every reply uses 10 prompt tokens (the server's default usage)
  (s.runtime as { session?: unknown }).session = newSession();
  const boss = s.make("boss");
  // the Critic socializes by its start chat (as an Agent/ directory would), so
  // each clone asks through its own `ask`; its Leaf comes from the loader
  const critic = s.make("Critic", [{ role: "socialize", content: "true" }]);
  setSpecialistLoader((name) => Promise.resolve(s.make(name)));
  addTemplate(boss, s.make("Worker"));
  addTemplate(boss, critic);
  socialize(boss);
  s.planFor("Critic", ["ask", { agent: "Leaf", prompt: "detail" }]);
  current(boss).push({ role: "user", content: "turn 1" });
  s.plan(
    ["ask", { agent: "Worker", prompt: "a" }],
    ["ask", { agent: "Worker", prompt: "b", conversation: "c1" }],
    ["ask", { agent: "Critic", prompt: "review" }],
  );
  await chat(boss);
  current(boss).push({ role: "user", content: "turn 2" });
  s.plan(["ask", { agent: "Worker", prompt: "c", conversation: "c1" }]);
  await chat(boss);
  setSpecialistLoader(loadAgent); // what load.ts installs

  // the boss: its own 4 inferences (2 turns × tool call + answer)
  assert.deepEqual(counters(boss.currentChat), ["10/10", "20/20", "30/30", "40/40"]);
  // a one-shot specialist starts at its own first inference
  assert.deepEqual(counters(boss.chats["Worker/_oneshot-1"]!.currentChat), ["10/10"]);
  // a continued conversation counts on across calls, still only its own
  assert.deepEqual(counters(boss.chats["Worker/c1"]!.currentChat), ["10/10", "20/20"]);
  // nested: the critic's two inferences, and its Leaf's one
  const c = boss.chats["Critic/_oneshot-1"]!;
  assert.deepEqual(counters(c.currentChat), ["10/10", "20/20"]);
  assert.deepEqual(counters(c.chats["Leaf/_oneshot-1"]!.currentChat), ["10/10"]);
});

Deno.test("a specialist on the task route counts into its own session, not the process's (the caller's)", async () => {
  await using s = await society();
  const home = s.env.SCOUT_HOME;
  await Deno.mkdir(`${home}/etc/AI`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/etc/AI/ep.yaml`,
    `backend: openai\nurl: ${s.srv.url}\nmodel: m\n`,
  );
  const dir = `${s.dir.path}/Agent/Tasker`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/start_chat`, "system:\n\nYou are Tasker\n\nendpoint: ep\n");
  await Deno.writeTextFile(
    `${dir}/workflow.ts`,
    `export default (api) => api.workflow("SessionTasker", {
  tasks: api.chatTask("ask", async ({ agent, chat }) => await agent(${
      JSON.stringify(dir)
    }, { chat: chat() })),
});\n`,
  );
  // the boss has no session of its own: it counts into the process's, as a CLI-loaded agent does
  const boss = s.make("boss");
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["ask", { agent: "Tasker", prompt: "t" }]);
  const r = await chat(boss);
  assert.match(
    JSON.parse(String(r.messages.find((m) => m.role === "function_call_output")!.content)).content,
    /Tasker heard: t/,
  );
  const [first, second] = counters(boss.currentChat).map((c) => Number(c.split("/")[0]));
  assert.equal(second! - first!, 10, "only the boss's own second inference in between");
  const job = boss.chats["Tasker/_oneshot-1"]!;
  const logs: string[] = [];
  for await (const e of Deno.readDir(`${home}/var/jobs/SessionTasker/ask`)) logs.push(e.name);
  const log = logs.find((n) => n.endsWith(".files"))!;
  const text = await Deno.readTextFile(`${home}/var/jobs/SessionTasker/ask/${log}/log/agent.chat`);
  assert.match(text, /\bpt_s=10\b/, "the Tasker's job counts from its own first inference");
  assert.ok(job);
});
