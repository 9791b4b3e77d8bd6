/**
 * A hand-off with `new_conversation: true` (agents.md §3.5, §7.9) keeps the
 * conversation it ends in the society logs (R82-2): the first conversation
 * stays `society/<name>/default.chat`, each new one is logged as
 * `society/<name>/_default-<n>.chat` (n from 2) and named on the call's
 * output, so provenance links every hand-off to the log that holds it.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chat, current } from "../../src/agent/agent.ts";
import { delegate } from "../../src/agent/delegate.ts";
import { agentLogFiles } from "../../src/agent/log.ts";
import { clearAgentCache } from "../../src/agent/mod.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ScriptStep, startProviderServer } from "../support/provider_server.ts";
import { bossWorkflow, outputs, shape, society, sys } from "./delegation_support.ts";
import { put } from "../support/files.ts";

Deno.test("R82-2: new_conversation keeps the ended conversation under default, the new one under _default-<n>", async () => {
  await using s = await society();
  const boss = s.make("boss");
  const worker = s.make("Worker");
  delegate(boss, worker, "worker", "Hand work to the worker");
  const turn = async (...calls: [string, Record<string, unknown>][]) => {
    current(boss).push({ role: "user", content: "go" });
    s.plan(...calls.map(([m, extra]) =>
      ["hand_off_to_worker", { message: m, ...extra }] as [
        string,
        Record<string, unknown>,
      ]
    ));
    return outputs((await chat(boss)).messages);
  };
  const first = await turn(["one", {}]);
  // a restart and a follow-up in one batch: the follow-up runs in the new conversation
  const second = await turn(["two", { new_conversation: true }], ["three", {}]);
  const third = await turn(["four", { new_conversation: true }]);
  assert.deepEqual([...first, ...second, ...third].map((o) => o.conversation), [
    undefined,
    "_default-2",
    "_default-2",
    "_default-3",
  ]);
  assert.equal(boss.chats["worker/_default-3"], worker);
  const files = new Map(agentLogFiles(boss));
  assert.deepEqual([...files.keys()], [
    "log/society/worker/default.chat",
    "log/society/worker/_default-2.chat",
    "log/society/worker/_default-3.chat",
    "log/agent.chat",
  ]);
  const heard = (p: string) => shape(files.get(`log/society/worker/${p}.chat`)!);
  assert.deepEqual(heard("default"), [
    `system ${sys("Worker")}`,
    "user one",
    "meta",
    "assistant Worker heard: one",
  ]);
  assert.deepEqual(heard("_default-2"), [
    `system ${sys("Worker")}`,
    "user two",
    "meta",
    "assistant Worker heard: two",
    "user three",
    "meta",
    "assistant Worker heard: three",
  ]);
  assert.deepEqual(heard("_default-3").slice(1, 2), ["user four"]);
});

Deno.test("R82-2: a new_conversation on a delegate that has not talked yet stays the default conversation", async () => {
  await using s = await society();
  const boss = s.make("boss");
  delegate(boss, s.make("Worker"), "worker", "Hand work to the worker");
  current(boss).push({ role: "user", content: "go" });
  s.plan(["hand_off_to_worker", { message: "one", new_conversation: true }]);
  const [out] = outputs((await chat(boss)).messages);
  assert.equal(out!.content, "Worker heard: one");
  assert.equal(out!.conversation, undefined);
  assert.deepEqual(agentLogFiles(boss).map(([p]) => p), [
    "log/society/worker/default.chat",
    "log/agent.chat",
  ]);
});

const handOff = (id: string, args: Record<string, unknown>, pt: number): ScriptStep => ({
  toolCalls: [{ name: "hand_off_to_Scribe", id, arguments: args }],
  usage: { pt, ct: 2 },
});

Deno.test("R82-2: a chat task's logs hold both conversations of a restarted hand-off; llm prov links and counts them", async () => {
  await using t = await tempDir();
  const boss = [
    handOff("s1", { message: "note A" }, 11),
    handOff("s2", { message: "note B", new_conversation: true }, 13),
    { text: "done", usage: { pt: 17, ct: 2 } },
  ];
  const scribe: ScriptStep[] = [
    { text: "noted A", usage: { pt: 19, ct: 1 } },
    { text: "noted B", usage: { pt: 23, ct: 1 } },
  ];
  await using srv = await startProviderServer({
    fallback: (r) => {
      const sys = String((r.body.messages as { content: string }[])[0]!.content);
      return (sys === "You are Boss" ? boss : scribe).shift() ?? { text: "no plan" };
    },
  });
  put(t.path, "Agent/Boss/start_chat", "system:\n\nYou are Boss\n");
  put(
    t.path,
    "Agent/Boss/agent.ts",
    `export default async (api, boss) => {
  const { backend, url, model, persist } = boss.options;
  const options = { backend, url, model, persist };
  const scribe = await api.loadAgent("Scribe", { runtime: boss.runtime, options });
  api.delegate(boss, scribe, "Scribe", "Hand notes to the Scribe");
};\n`,
  );
  put(t.path, "Agent/Scribe/start_chat", "system:\n\nYou are Scribe\n");
  clearAgentCache();
  const runtime = { cwd: t.path, env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "k" } };
  const wf = bossWorkflow("RestartingBoss", t.path, srv.url, runtime);
  const job = createJob(wf, "ask", {
    inputs: { chat: "user:\n\nTake two notes\n" },
    env: runtime.env,
  });
  await runJob(job);
  const society = join(job.path + ".files", "log", "society", "Scribe");
  const a = readFileSync(join(society, "default.chat"), "utf8");
  const b = readFileSync(join(society, "_default-2.chat"), "utf8");
  assert.match(a, /note A[\s\S]*pt=19 ct=1 tt=20[\s\S]*noted A/);
  assert.doesNotMatch(a, /note B/);
  assert.match(b, /note B[\s\S]*pt=23 ct=1 tt=24[\s\S]*noted B/);
  assert.doesNotMatch(b, /note A/);
  // every inference once: Boss 13 + 15 + 19, Scribe 20 + 24
  const prov = await runMain(["llm", "prov", "--json", job.path], { env: runtime.env });
  assert.equal(prov.code, 0, prov.stderr);
  const nodes = JSON.parse(prov.stdout).nodes as {
    id: string;
    tokens: { direct: { tt: number }; subtree: { tt: number } };
  }[];
  assert.equal(nodes[0]!.tokens.subtree.tt, 91);
  const logs = nodes.filter((n) => n.id.startsWith(`chat:${society}/`));
  assert.deepEqual(logs.map((n) => [n.id.slice(society.length + 6), n.tokens.direct.tt]).sort(), [
    ["_default-2.chat", 24],
    ["default.chat", 20],
  ]);
  // each hand-off links to the log of the conversation it ran in
  const tools = await runMain(["llm", "prov", "--tools", "--json", job.path], { env: runtime.env });
  assert.equal(tools.code, 0, tools.stderr);
  const calls = (JSON.parse(tools.stdout).calls as {
    callId: string;
    chat: string;
    delegation: { logs: string[] };
  }[]).filter((c) => c.chat.endsWith("agent.chat"));
  assert.deepEqual(calls.map((c) => [c.callId, c.delegation.logs]), [
    ["s1", [join(society, "default.chat")]],
    ["s2", [join(society, "_default-2.chat")]],
  ]);
});

/** Boss hands "note A" to a socializing Scribe, which asks the Librarian; then "note B" in a new conversation. */
async function restartAfterAsk(t: { path: string }, shelf: boolean, second: ScriptStep[]) {
  const asks = [{ name: "ask", id: "a1", arguments: { agent: "Librarian", prompt: "look A" } }];
  if (shelf) {
    const args = { agent: "Librarian", prompt: "shelve A", conversation: "shelf" };
    asks.push({ name: "ask", id: "a1b", arguments: args });
  }
  const boss = [
    handOff("s1", { message: "note A" }, 11),
    handOff("s2", { message: "note B", new_conversation: true }, 13),
    { text: "done", usage: { pt: 17, ct: 2 } },
  ];
  const scribe: ScriptStep[] = [
    { toolCalls: asks, usage: { pt: 29, ct: 1 } },
    { text: "noted A", usage: { pt: 19, ct: 1 } },
    ...second,
  ];
  const librarian: ScriptStep[] = [
    { text: "found A", usage: { pt: 7109, ct: 7 } },
    { text: "shelved", usage: { pt: 41, ct: 1 } },
    { text: "found again", usage: { pt: 43, ct: 1 } },
  ];
  const srv = await startProviderServer({
    fallback: (r) => {
      const sys = String((r.body.messages as { content: string }[])[0]!.content);
      const plan = sys === "You are Boss" ? boss : sys === "You are Scribe" ? scribe : librarian;
      return plan.shift() ?? { text: "no plan" };
    },
  });
  put(t.path, "Agent/Boss/start_chat", "system:\n\nYou are Boss\n");
  put(
    t.path,
    "Agent/Boss/agent.ts",
    `export default async (api, boss) => {
  const { backend, url, model, persist } = boss.options;
  const options = { backend, url, model, persist };
  const scribe = await api.loadAgent("Scribe", { runtime: boss.runtime, options });
  api.socialize(scribe);
  api.delegate(boss, scribe, "Scribe", "Hand notes to the Scribe");
};\n`,
  );
  put(t.path, "Agent/Scribe/start_chat", "system:\n\nYou are Scribe\n");
  put(t.path, "Agent/Librarian/start_chat", "system:\n\nYou are Librarian\n");
  clearAgentCache();
  const runtime = { cwd: t.path, env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "k" } };
  const wf = bossWorkflow(`RestartAfterAsk${shelf ? "Shelf" : ""}`, t.path, srv.url, runtime);
  const job = createJob(wf, "ask", {
    inputs: { chat: "user:\n\nTake two notes\n" },
    env: runtime.env,
  });
  try {
    await runJob(job);
  } finally {
    await srv.close();
  }
  const prov = await runMain(["llm", "prov", "--json", job.path], { env: runtime.env });
  assert.equal(prov.code, 0, prov.stderr);
  const nodes = JSON.parse(prov.stdout).nodes as {
    id: string;
    tokens: { direct: { tt: number }; subtree: { tt: number } };
  }[];
  const society = join(job.path + ".files", "log", "society", "Scribe");
  const tokens = nodes.filter((n) => n.id.startsWith(`chat:${society}/`))
    .map((n) => [n.id.slice(society.length + 6), n.tokens.direct.tt, n.tokens.subtree.tt])
    .sort();
  return { society, tokens, total: nodes[0]!.tokens.subtree.tt };
}

Deno.test("R87-2: the conversation a new_conversation starts does not log the specialists the ended one asked", async () => {
  await using t = await tempDir();
  const { society, tokens, total } = await restartAfterAsk(t, false, [
    { text: "noted B", usage: { pt: 23, ct: 1 } },
  ]);
  // Boss 13 + 15 + 19, Scribe 30 + 20 + 24, Librarian 7116
  assert.equal(total, 47 + 74 + 7116);
  assert.deepEqual(tokens, [
    ["_default-2.chat", 24, 24],
    ["default.chat", 50, 50 + 7116],
    ["default/society/Librarian/_oneshot-1.chat", 7116, 7116],
  ]);
  assert.equal(existsSync(join(society, "_default-2")), false);
});

Deno.test("R87-2: a specialist conversation both conversations talked in is logged under both", async () => {
  await using t = await tempDir();
  const { tokens } = await restartAfterAsk(t, true, [
    {
      toolCalls: [{
        name: "ask",
        id: "a2",
        arguments: { agent: "Librarian", prompt: "fetch B", conversation: "shelf" },
      }],
      usage: { pt: 31, ct: 1 },
    },
    { text: "noted B", usage: { pt: 23, ct: 1 } },
  ]);
  // the shelf conversation started in the first and went on in the second: it is in both
  assert.deepEqual(tokens.map(([p]) => p), [
    "_default-2.chat",
    "_default-2/society/Librarian/shelf.chat",
    "default.chat",
    "default/society/Librarian/_oneshot-1.chat",
    "default/society/Librarian/shelf.chat",
  ]);
});
