/**
 * `scout-ai agent ask` with a socializing agent (§5.1 steps 4–5, §3.4): the
 * question, the `-c` conversation and `-w` tool lines are the agent's live
 * chat, so a specialist inherits them; the start chat is not inherited as
 * conversation.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

/** Agents (name → start chat) under `dir`, an endpoint `ep` at `url` (model ep-model); run options. */
function onEndpoint(dir: string, url: string, agents: Record<string, string>) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${url}\nmodel: ep-model\n`);
  for (const [name, start] of Object.entries(agents)) put(dir, `Agent/${name}/start_chat`, start);
  clearAgentCache();
  return { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: dir };
}

type Wire = { role: string; content: string };
const sent = (body: Record<string, unknown>) =>
  (body.messages as Wire[]).map((m) => `${m.role} ${m.content}`);

/** A provider for Boss and Worker: Boss's first round makes `calls`, its next answers; Worker answers. */
function bossAndWorker(calls: { id: string; name: string; arguments: Record<string, unknown> }[]) {
  return startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      if (msgs[0]!.content !== "You are boss") return { text: "worker answer" };
      if (msgs.at(-1)!.role === "tool") return { text: "boss done" };
      return { toolCalls: calls };
    },
  });
}

Deno.test("agent ask: specialists inherit the question, the -c conversation and -w tools", async () => {
  await using t = await tempDir();
  await using srv = await bossAndWorker([
    {
      id: "c1",
      name: "ask",
      arguments: { agent: "Worker", prompt: "p1", inherit: "conversation" },
    },
    { id: "c2", name: "ask", arguments: { agent: "Worker", prompt: "p2", inherit: "tools" } },
  ]);
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(t.path, "Agent/Boss/start_chat", "system: You are boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(t.path, "Agent/Worker/start_chat", "system: You are Worker\n\nendpoint: ep\n");
  put(
    t.path,
    "workflows/Pantry/workflow.ts",
    `export default { tasks: { count: { type: "string", inputs: {}, run: () => "3" } } };\n`,
  );
  put(t.path, "conv.chat", "user: earlier\n\nassistant: noted\n");
  clearAgentCache();
  const o = { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: t.path };
  const r = await runMain(
    ["agent", "ask", "Boss", "-c", "conv.chat", "-w", "Pantry", "--no-cache", "plan it"],
    o,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "boss done\n");
  const worker = srv.requests.filter((q) =>
    (q.body.messages as Wire[])[0]!.content === "You are Worker"
  );
  assert.equal(worker.length, 2);
  const [full, tools] = [sent(worker[0]!.body), sent(worker[1]!.body)];
  // the boss's conversation since its start chat (not the start chat itself)
  assert.deepEqual(full, [
    "system You are Worker",
    "user earlier",
    "assistant noted",
    "user plan it",
    "user p1",
  ]);
  assert.deepEqual(tools[0], "system You are Worker");
  assert.deepEqual(tools.at(-1), "user p2");
  const toolsSent = (worker[1]!.body.tools as { function: { name: string } }[] | undefined ?? [])
    .map((x) => x.function.name);
  assert.ok(toolsSent.includes("count"), JSON.stringify(toolsSent));
});

Deno.test("agent ask --help: the piped example's question takes stdin, as documented", async () => {
  await using t = await tempDir();
  put(t.path, "Agent/Critic/start_chat", "system: You criticise\n");
  clearAgentCache();
  const help = await runMain(["agent", "ask", "--help"], { cwd: t.path });
  const example = help.stdout.split("\n").find((l) => l.includes("git diff |"))!;
  const question = /agent ask Critic "([^"]*)"/.exec(example)![1]!;
  const o = { env: { SCOUT_HOME: join(t.path, "home") }, cwd: t.path, stdin: "-a\n+b\n" };
  const r = await runMain(["agent", "ask", "Critic", "--dry-run", question], o);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /-a\n\+b/);
});

Deno.test("agent ask: the caller's start-chat option lines stay its own; -m, an agent option, reaches its specialists (§3.3)", async () => {
  await using t = await tempDir();
  await using srv = await bossAndWorker([
    { id: "c1", name: "ask", arguments: { agent: "Worker", prompt: "p" } },
  ]);
  const o = onEndpoint(t.path, srv.url, {
    Boss: "system: You are boss\n\nendpoint: ep\n\nmodel: boss-model\n\nsocialize: true\n",
    Worker: "system: You are Worker\n\nendpoint: ep\n",
  });
  const models = async (...flags: string[]) => {
    srv.requests.length = 0;
    const r = await runMain(["agent", "ask", "Boss", ...flags, "--no-cache", "plan it"], o);
    assert.equal(r.code, 0, r.stderr);
    const of = (who: string) =>
      srv.requests.filter((q) => (q.body.messages as Wire[])[0]!.content === who)
        .map((q) => q.body.model);
    return { boss: of("You are boss"), worker: of("You are Worker") };
  };
  assert.deepEqual(await models(), {
    boss: ["boss-model", "boss-model"],
    worker: ["ep-model"], // the Worker's own endpoint's model, not the boss's line
  });
  assert.deepEqual(await models("-m", "flag-model"), {
    boss: ["flag-model", "flag-model"],
    worker: ["flag-model"],
  });
});

Deno.test("agent ask: a nested one-shot specialist's start-chat lines stay its own: its specialist keeps its model (§3.3)", async () => {
  await using t = await tempDir();
  const call = (agent: string) => ({
    toolCalls: [{ id: `c-${agent}`, name: "ask", arguments: { agent, prompt: "p" } }],
  });
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      const done = msgs.at(-1)!.role === "tool";
      if (msgs[0]!.content === "You are boss") return done ? { text: "boss done" } : call("Worker");
      if (msgs[0]!.content === "You are Worker") {
        return done ? { text: "worker done" } : call("Leaf");
      }
      return { text: "leaf answer" };
    },
  });
  const o = onEndpoint(t.path, srv.url, {
    Boss: "system: You are boss\n\nendpoint: ep\n\nsocialize: true\n",
    Worker: "system: You are Worker\n\nendpoint: ep\n\nmodel: worker-model\n\nsocialize: true\n",
    Leaf: "system: You are Leaf\n\nendpoint: ep\n",
  });
  const r = await runMain(["agent", "ask", "Boss", "--no-cache", "plan it"], o);
  assert.equal(r.code, 0, r.stderr);
  const models = srv.requests.map((q) =>
    `${(q.body.messages as Wire[])[0]!.content.slice(8)}:${q.body.model}`
  );
  // Worker (a clone: one-shot) keeps its line; Leaf, its specialist, has its own endpoint's model
  assert.deepEqual(models, [
    "boss:ep-model",
    "Worker:worker-model",
    "Leaf:ep-model",
    "Worker:worker-model",
    "boss:ep-model",
  ]);
});

/**
 * Boss (no endpoint line) hands off to Critic (no endpoint or model line) and
 * to Editor (its own `model:` line), agents its `agent.ts` loads; with
 * `chatTask`, Boss's workflow has an `ask` chat task that loads Boss again.
 */
function handOffSociety(dir: string, url: string, chatTask: boolean) {
  const o = onEndpoint(dir, url, {
    Boss: "system: You are boss\n\nsocialize: true\n",
    Critic: "system: You are Critic\n",
    Editor: "system: You are Editor\n\nmodel: editor-model\n",
  });
  // the endpoint's own key, none in the env: an agent without the endpoint fails, asking no one
  put(
    o.env.SCOUT_HOME,
    "etc/AI/ep.yaml",
    `backend: openai\nurl: ${url}\nmodel: ep-model\nkey: nokey\n`,
  );
  put(
    dir,
    "Agent/Boss/agent.ts",
    `export default async (api, boss) => {
  api.delegate(boss, await api.loadAgent("Critic"), "Critic", "Have it criticised");
  api.delegate(boss, await api.loadAgent("Editor"), "Editor", "Have it edited");
};\n`,
  );
  if (chatTask) {
    put(
      dir,
      "Agent/Boss/workflow.ts",
      `export default (api) => api.workflow("OptionsBoss", { tasks: { ...api.chatTask("ask", async ({ agent, chat }) => await agent(${
        JSON.stringify(join(dir, "Agent", "Boss"))
      }, { chat: chat() })) } });\n`,
    );
  }
  return { cwd: o.cwd, env: { SCOUT_HOME: o.env.SCOUT_HOME, HOME: o.env.SCOUT_HOME } };
}

/** The model each agent's requests asked for, by the agent's system message. */
function modelsBy(srv: { requests: { body: Record<string, unknown> }[] }) {
  const out: Record<string, unknown[]> = {};
  for (const q of srv.requests) {
    const who = (q.body.messages as Wire[])[0]!.content.replace(/^You are /, "");
    (out[who] ??= []).push(q.body.model);
  }
  return out;
}

for (const chatTask of [false, true]) {
  const route = chatTask ? "task route" : "direct route";
  Deno.test(`agent ask -e/-m, ${route}: an agent.ts hand-off's agent gets what it lacks from its caller; its own lines win (R140-4)`, async () => {
    await using t = await tempDir();
    await using srv = await bossAndWorker([
      { id: "c1", name: "hand_off_to_Critic", arguments: { message: "criticise" } },
      { id: "c2", name: "hand_off_to_Editor", arguments: { message: "edit" } },
    ]);
    const o = handOffSociety(t.path, srv.url, chatTask);
    const flags = ["-e", "ep", "-m", "flag-model", "--no-cache", "plan it"];
    const r = await runMain(["agent", "ask", "Boss", ...flags], o);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "boss done\n");
    assert.doesNotMatch(r.stderr, /failed/);
    assert.deepEqual(modelsBy(srv), {
      boss: ["flag-model", "flag-model"],
      Critic: ["flag-model"],
      Editor: ["editor-model"], // its start chat's line, over the caller's -m
    });
  });
}

Deno.test("workflow task: a chat task's hand-off agent gets the job chat's endpoint and model (R140-4)", async () => {
  await using t = await tempDir();
  await using srv = await bossAndWorker([
    { id: "c1", name: "hand_off_to_Critic", arguments: { message: "criticise" } },
    { id: "c2", name: "hand_off_to_Editor", arguments: { message: "edit" } },
  ]);
  const o = handOffSociety(t.path, srv.url, true);
  put(t.path, "q.chat", "endpoint: ep\n\nmodel: flag-model\n\nuser: plan it\n");
  const r = await runScout(["workflow", "task", "Boss", "ask", "--chat", "q.chat"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /boss done/);
  assert.deepEqual(modelsBy(srv), {
    boss: ["flag-model", "flag-model"],
    Critic: ["flag-model"],
    Editor: ["editor-model"],
  });
});
