/**
 * Tools an agent's `agent.ts` registers with `socialize`/`delegate` act for
 * each clone of it (§3.3): a specialist that delegates keeps, per
 * conversation of it, its own nested conversations and hand-off agent, and
 * `inherit` copies the clone's own chat — not the template's. Specialists
 * are loaded with the caller's options minus its tools, formats and sessions.
 */
import assert from "node:assert/strict";
import { chat, createAgent, current } from "../../src/agent/agent.ts";
import { agentLogFiles } from "../../src/agent/log.ts";
import { clearAgentCache, socialize } from "../../src/agent/mod.ts";
import { socialOptions } from "../../src/agent/socialize.ts";
import type { RecordedRequest } from "../support/provider_server.ts";
import { outputs, society, sys, wire } from "./delegation_support.ts";
import { put } from "../support/files.ts";

const WORKER_SCRIPT = `export default (api, agent) => {
  const { backend, url, model } = agent.options;
  const scribe = api.agent({
    name: "Scribe",
    startChat: [{ role: "system", content: "You are Scribe" }],
    options: { backend, url, model },
    runtime: agent.runtime,
  });
  api.socialize(agent);
  api.delegate(agent, scribe, "scribe", "Hand notes to the scribe");
};
`;

const contents = (r: RecordedRequest) => wire(r).map((m) => m.content);

Deno.test("socialize/delegate in agent.ts: each clone has its own nested conversations and hand-off agent", async () => {
  await using s = await society();
  clearAgentCache();
  put(s.dir.path, "Agent/Worker/start_chat", `system:\n\n${sys("Worker")}\n`);
  put(s.dir.path, "Agent/Worker/agent.ts", WORKER_SCRIPT);
  put(s.dir.path, "Agent/Helper/start_chat", `system:\n\n${sys("Helper")}\n`);
  const boss = s.make("boss");
  socialize(boss);
  for (const n of ["one", "two"]) {
    current(boss).push({ role: "user", content: `go ${n}` });
    s.plan(["ask", { agent: "Worker", prompt: n }]);
    s.planFor(
      "Worker",
      ["ask", { agent: "Helper", prompt: `help ${n}`, conversation: "h", inherit: "conversation" }],
      ["hand_off_to_scribe", { message: `note ${n}` }],
    );
    const r = await chat(boss);
    assert.equal(outputs(r.messages)[0]!.content, "Worker done");
  }
  const template = boss.society.Worker!;
  assert.deepEqual(template.chats, {}, "the template never runs");
  assert.equal(template.currentChat, null);
  const [w1, w2] = [boss.chats["Worker/_oneshot-1"]!, boss.chats["Worker/_oneshot-2"]!];
  assert.deepEqual(Object.keys(w1.chats).sort(), ["Helper/h", "scribe/default"]);
  assert.deepEqual(Object.keys(w2.chats).sort(), ["Helper/h", "scribe/default"]);
  assert.notEqual(w1.chats["Helper/h"], w2.chats["Helper/h"]);
  assert.notEqual(w1.chats["scribe/default"], w2.chats["scribe/default"]);
  // the second conversation with Helper starts fresh and inherits clone 2's own chat
  assert.deepEqual(contents(s.requestsOf("Helper")[1]!), [sys("Helper"), "two", "help two"]);
  assert.deepEqual(contents(s.requestsOf("Scribe")[1]!), [sys("Scribe"), "note two"]);
  const files = agentLogFiles(boss).map(([p]) => p).sort();
  assert.deepEqual(files, [
    "log/agent.chat",
    "log/society/Worker/_oneshot-1.chat",
    "log/society/Worker/_oneshot-1/society/Helper/h.chat",
    "log/society/Worker/_oneshot-1/society/scribe/default.chat",
    "log/society/Worker/_oneshot-2.chat",
    "log/society/Worker/_oneshot-2/society/Helper/h.chat",
    "log/society/Worker/_oneshot-2/society/scribe/default.chat",
  ]);
});

Deno.test("ask and a hand-off never share a conversation key: the second is an error output", async () => {
  await using s = await society();
  clearAgentCache();
  put(s.dir.path, "Agent/scribe/start_chat", `system:\n\n${sys("scribe")}\n`);
  const boss = s.make("boss");
  const { delegate } = await import("../../src/agent/delegate.ts");
  socialize(boss);
  delegate(boss, s.make("Scribe"), "scribe", "Hand notes to the scribe");
  current(boss).push({ role: "user", content: "go" });
  s.plan(["hand_off_to_scribe", { message: "note" }]);
  await chat(boss);
  current(boss).push({ role: "user", content: "again" });
  s.plan(["ask", { agent: "scribe", prompt: "p", conversation: "default" }]);
  const r = await chat(boss);
  const out = outputs(r.messages)[0]!;
  assert.equal(out.error, "error");
  assert.match(JSON.stringify(out), /taken by a hand-off agent/);
  assert.equal(s.requestsOf("scribe").length, 0);
  assert.equal(boss.chats["scribe/default"]!.name, "Scribe");
});

Deno.test("socialOptions: backend, url, model and persist flow to specialists; tools, formats and the private keys never do (§3.3, R104-4)", () => {
  const shared = { backend: "openai", url: "http://127.0.0.1:9", model: "m", persist: false };
  const private_ = {
    agent: "x",
    client: {},
    current_meta: [],
    format: { type: "object", properties: { a: { type: "string" } } },
    messages: [],
    no_ask_override: true,
    previous_response_id: "r1",
    process: "p",
    return_messages: true,
    tool_choice: "required",
    tools: { whisk: { impl: () => "whisked" } },
  };
  const caller = createAgent({ name: "boss", options: { ...shared, ...private_ } });
  assert.deepEqual(socialOptions(caller), shared);
  // nor when they are given to socialize itself
  const bare = createAgent({ name: "boss", options: { ...shared } });
  assert.deepEqual(socialOptions(bare, { format: private_.format, tools: private_.tools }), shared);
});
