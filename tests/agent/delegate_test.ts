/**
 * `delegate` hand-offs (§3.5, §7.9) and nested societies (§7.7): specialists
 * run in-process, so a specialist's own society is kept and logged under
 * `society/<Agent>/<conversation>/society/…`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { chat, createAgent, current, prompt } from "../../src/agent/agent.ts";
import { delegate } from "../../src/agent/delegate.ts";
import { agentLogFiles } from "../../src/agent/log.ts";
import { socialize } from "../../src/agent/mod.ts";
import { addAgentTool } from "../../src/agent/socialize.ts";
import type { ToolEntry } from "../../src/tools/types.ts";
import { print } from "../../src/chat/print.ts";
import { addTemplate, outputs, shape, society, sys } from "./delegation_support.ts";

Deno.test("hand_off_to_<name>: one live agent, logged as society/<name>/default.chat, with receipts", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const worker = s.make("Worker");
  delegate(boss, worker, "worker", "Hand work to the worker");
  const def = (boss.options.tools as Record<string, { definition: { function: unknown } }>)
    .hand_off_to_worker!.definition.function as { parameters: { required: string[] } };
  assert.deepEqual(def.parameters.required, ["message"]);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["hand_off_to_worker", { message: "one" }]);
  const r1 = await chat(boss);
  current(boss).push({ role: "user", content: "again" });
  s.plan(["hand_off_to_worker", { message: "two" }]);
  await chat(boss);
  current(boss).push({ role: "user", content: "fresh" });
  s.plan(["hand_off_to_worker", { message: "three", new_conversation: true }]);
  await chat(boss);
  const o = outputs(r1.messages)[0]!;
  assert.equal(o.content, "Worker heard: one");
  assert.equal((o.agent_meta as unknown[]).length, 1);
  // the restart moved the live agent on; its first conversation stays logged (R82-2)
  assert.equal(boss.chats["worker/_default-2"], worker);
  assert.deepEqual(shape(worker.currentChat), [
    `system ${sys("Worker")}`,
    "user three",
    "meta",
    "assistant Worker heard: three",
  ]);
  // before the reset the two hand-offs shared one conversation
  const second = s.requestsOf("Worker")[1]!;
  assert.deepEqual((second.body.messages as { content: string }[]).map((m) => m.content), [
    sys("Worker"),
    "one",
    "Worker heard: one",
    "two",
  ]);
  const files = agentLogFiles(boss).map(([p]) => p);
  assert.deepEqual(files, [
    "log/society/worker/default.chat",
    "log/society/worker/_default-2.chat",
    "log/agent.chat",
  ]);
});

Deno.test("delegate with a custom handler and tool name", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const seen: unknown[] = [];
  delegate(boss, s.make("Worker"), "worker", "Custom", {
    toolName: "pass_on",
    handler: (name, params) => {
      seen.push([name, params.message]);
      return "custom says hi";
    },
  });
  current(boss).push({ role: "user", content: "go" });
  s.plan(["pass_on", { message: "m" }]);
  const r = await chat(boss);
  assert.deepEqual(seen, [["pass_on", "m"]]);
  assert.equal(outputs(r.messages)[0]!.content, "custom says hi");
  assert.equal(s.requestsOf("Worker").length, 0);
});

Deno.test("delegate refuses a name that is not one: ../x, .., . (a log directory, §7.2, R104-7)", () => {
  const boss = createAgent({ name: "boss" });
  for (const bad of ["../x", "..", "."]) {
    assert.throws(
      () => delegate(boss, createAgent({ name: "X" }), bad, "bad"),
      /not an agent name/,
      bad,
    );
  }
  assert.equal(boss.options.tools, undefined);
});

Deno.test("two hand-offs named alike (other tool names) in one turn: the second is refused, its conversation is taken (R104-8)", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const [one, two] = [s.make("One"), s.make("Two")];
  delegate(boss, one, "w", "Hand to one", { toolName: "to_one" });
  delegate(boss, two, "w", "Hand to two", { toolName: "to_two" });
  current(boss).push({ role: "user", content: "go" });
  s.plan(["to_one", { message: "a" }], ["to_two", { message: "b" }]);
  const outs = outputs((await chat(boss)).messages);
  assert.equal(outs[0]!.content, "One heard: a");
  assert.equal(outs[1]!.error, "error");
  assert.match(
    String(JSON.parse(String(outs[1]!.content)).exception),
    /Conversation "default" with w is taken by another agent/,
  );
  assert.equal(boss.chats["w/default"], one);
  assert.equal(s.requestsOf("Two").length, 0);
});

Deno.test("nested societies run in-process and are logged under society/<Agent>/<conv>/society/", async () => {
  await using s = await society();
  await Deno.mkdir(join(s.dir.path, "Agent", "Helper"), { recursive: true });
  await Deno.writeTextFile(
    join(s.dir.path, "Agent", "Helper", "start_chat"),
    `system:\n\n${sys("Helper")}\n`,
  );
  const boss = s.make("boss");
  addTemplate(boss, s.make("Worker", [{ role: "socialize", content: "true" }]));
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["ask", { agent: "Worker", prompt: "dig" }]);
  s.planFor("Worker", ["ask", { agent: "Helper", prompt: "help me" }]);
  const r = await chat(boss);
  assert.equal(outputs(r.messages)[0]!.content, "Worker done");
  const w = boss.chats["Worker/_oneshot-1"]!;
  const h = w.chats["Helper/_oneshot-1"]!;
  assert.deepEqual(shape(h.currentChat), [
    `system ${sys("Helper")}`,
    "user help me",
    "meta",
    "assistant Helper heard: help me",
  ]);
  // the worker's tool output carries the helper's receipt
  const wOut = outputs(w.currentChat!)[0]!;
  assert.equal(wOut.content, "Helper heard: help me");
  assert.equal((wOut.agent_meta as unknown[]).length, 1);
  const files = agentLogFiles(boss);
  assert.deepEqual(files.map(([p]) => p).sort(), [
    "log/agent.chat",
    "log/society/Worker/_oneshot-1.chat",
    "log/society/Worker/_oneshot-1/society/Helper/_oneshot-1.chat",
  ]);
  assert.match(print(files.find(([p]) => p.endsWith("Helper/_oneshot-1.chat"))![1]), /help me/);
  // nothing written outside the job/log dirs: only the agent dir and SCOUT_HOME
  const top = [];
  for await (const e of Deno.readDir(s.dir.path)) top.push(e.name);
  assert.deepEqual(top.sort(), ["Agent", "home"]);
});

Deno.test("a delegate cycle: a hand-back to an agent whose turn runs is an error output; logs end", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const worker = s.make("Worker");
  delegate(boss, worker, "worker", "Hand work to the worker");
  delegate(worker, boss, "boss", "Hand back to the boss");
  current(boss).push({ role: "user", content: "go" });
  s.plan(["hand_off_to_worker", { message: "one" }]);
  s.planFor("Worker", ["hand_off_to_boss", { message: "back to you" }]);
  const r = await chat(boss);
  assert.equal(r.text, "boss done");
  // the worker's hand-back was refused: the boss's live chat got nothing mid-turn
  const back = outputs(worker.currentChat!)[0]!;
  assert.match(String(back.content), /Cannot hand off to boss: its turn is still running/);
  assert.deepEqual(shape(boss.currentChat).filter((l) => l.startsWith("user")), ["user go"]);
  assert.equal(outputs(r.messages)[0]!.content, "Worker done");
  assert.equal(s.requestsOf("boss").length, 2);
  // once the boss's turn is over the worker may hand off to it: the chats now form a cycle
  current(worker).push({ role: "user", content: "later" });
  s.planFor("Worker", ["hand_off_to_boss", { message: "over to you" }]);
  await chat(worker);
  assert.equal(worker.chats["boss/default"], boss);
  assert.deepEqual(agentLogFiles(boss).map(([p]) => p), [
    "log/society/worker/default.chat",
    "log/agent.chat",
  ]);
  assert.deepEqual(agentLogFiles(worker).map(([p]) => p), [
    "log/society/boss/default.chat",
    "log/agent.chat",
  ]);
});

Deno.test("a hand-off to an agent busy with unrelated work is not a cycle: it runs", async () => {
  await using s = await society({ delayMs: 150 });
  const boss = s.make("boss");
  const worker = s.make("Worker");
  delegate(boss, worker, "worker", "Hand work to the worker");
  // the application asks the worker something else at the same time
  const side = prompt(worker, "user: a side question");
  current(boss).push({ role: "user", content: "go" });
  s.plan(["hand_off_to_worker", { message: "one" }]);
  const r = await chat(boss);
  assert.equal(outputs(r.messages)[0]!.content, "Worker heard: one");
  assert.equal((await side).text, "Worker heard: a side question");
});

Deno.test("a delegate cycle through a tool that runs the worker itself is refused too", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const worker = s.make("Worker");
  delegate(worker, boss, "boss", "Hand back to the boss");
  addAgentTool(boss, "run_worker", {
    definition: {
      type: "function",
      function: {
        name: "run_worker",
        description: "Runs the worker",
        parameters: { type: "object", properties: {} },
      },
    },
    impl: async () => {
      current(worker).push({ role: "user", content: "from a tool" });
      return (await chat(worker)).text;
    },
  } as ToolEntry);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["run_worker", {}]);
  s.planFor("Worker", ["hand_off_to_boss", { message: "back to you" }]);
  const r = await chat(boss);
  assert.equal(r.text, "boss done");
  assert.match(String(outputs(worker.currentChat!)[0]!.content), /Cannot hand off to boss/);
  assert.equal(s.requestsOf("boss").length, 2);
});

Deno.test("a specialist whose agents hand off to each other clones into one pair (ask reaches it)", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const triage = s.make("Triage");
  const billing = s.make("Billing");
  delegate(triage, billing, "billing", "Billing questions");
  delegate(billing, triage, "triage", "Anything else");
  addTemplate(boss, triage);
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["ask", { agent: "Triage", prompt: "refund" }]);
  s.planFor("Triage", ["hand_off_to_billing", { message: "refund please" }]);
  s.planFor("Billing", ["hand_off_to_triage", { message: "back to you" }]);
  const r = await chat(boss);
  assert.equal(outputs(r.messages)[0]!.content, "Triage done");
  const t = boss.chats["Triage/_oneshot-1"]!;
  const b = t.chats["billing/default"]!;
  assert.notEqual(b, billing); // the clone's own copy of the pair
  // Billing's hand-back reached the waiting Triage copy: refused, not a new Triage
  assert.match(String(outputs(b.currentChat!)[0]!.content), /Cannot hand off to triage/);
});
