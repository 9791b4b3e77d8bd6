/**
 * An `agent.ts` that hands the API something that is not an agent — an
 * un-awaited `api.loadAgent(…)`, a name, `{}` — fails its load, naming the
 * script and the line of the call and saying what it got (R131-1); before,
 * `delegate` took it, and the hand-off tool's output said "agent.startChat is
 * not iterable" once the model called it. An `agent.ts` that leaves (or
 * returns) an agent whose fields are not of their kinds fails its load too,
 * naming the script (R131-2), instead of the first inference failing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { createAgent } from "../../src/agent/agent.ts";
import { delegate } from "../../src/agent/delegate.ts";
import * as mod from "../../src/agent/mod.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

type LoadError = Error & { code?: string; file?: string; line?: number };

Deno.test("agent ask: delegate given an un-awaited loadAgent fails the load at its line, before any request (R131-1)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const home = join(d.path, "home");
  put(home, "etc/AI/loop.yaml", `backend: openai\nurl: ${srv.url}/v1\nmodel: m\nkey: sk-x\n`);
  put(d.path, "Agent/Editor/start_chat", "system:\n\nYou are Editor\n\nendpoint: loop\n");
  put(d.path, "Agent/Bad/start_chat", "system:\n\nYou are Bad\n\nendpoint: loop\n");
  const script = put(
    d.path,
    "Agent/Bad/agent.ts",
    `export default (api, agent) => {\n  const ed = api.loadAgent("Editor");\n` +
      `  api.delegate(agent, ed, "Editor", "x");\n};\n`,
  );
  srv.script(
    { toolCalls: [{ name: "hand_off_to_Editor", id: "c1", arguments: { message: "polish" } }] },
    { text: "polished" },
    { text: "done" },
  );
  const r = await runScout(["agent", "ask", "Bad", "polish this"], {
    env: { SCOUT_HOME: home },
    cwd: d.path,
  });
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  assert.equal(
    r.stderr,
    `scout-ai: Agent script "${script}" failed: delegate: argument 2 (the agent handed to) ` +
      `is a Promise: await api.loadAgent(…) (${script}:3)\n`,
  );
  assert.equal(srv.requests.length, 0, "nothing asked of a model");
});

Deno.test("agent.ts: what is no agent, given to an agent function, fails the load at the call's line (R131-1)", async () => {
  await using d = await tempDir();
  clearAgentCache();
  put(d.path, "Agent/Editor/start_chat", "system: You are Editor\n");
  const opts = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home") }, warn: () => {} };
  const cases: [string, string][] = [
    [
      `api.delegate(agent, "Editor", "Editor", "x")`,
      `delegate: argument 2 (the agent handed to) is a string, not an agent: pass await api.loadAgent("Editor")`,
    ],
    [
      `api.delegate(agent, {}, "Editor", "x")`,
      "delegate: argument 2 (the agent handed to) is not an agent (it has no startChat, options, runtime, society, chats)",
    ],
    [
      `api.delegate(api.loadAgent("Editor"), agent, "Editor", "x")`,
      "delegate: argument 1 (the caller) is a Promise: await api.loadAgent(…)",
    ],
    [`api.socialize(api.loadAgent("Editor"))`, "socialize: argument 1 is a Promise"],
    // before, start set a field of the Promise and went on without a word
    [`api.start(api.loadAgent("Editor"))`, "start: argument 1 is a Promise"],
    [`await api.ask(null)`, "ask: argument 1 is null, not an agent"],
    [
      `await api.json({ ...agent, options: null })`,
      "json: argument 1 is not an agent (options is null, not an object)",
    ],
  ];
  for (const [i, [call, message]] of cases.entries()) {
    const script = put(
      d.path,
      `Agent/Bad${i}/agent.ts`,
      `export default async (api, agent) => {\n  ${call};\n};\n`,
    );
    await assert.rejects(() => loadAgent(`Bad${i}`, opts), (e: LoadError) => {
      assert.equal(e.code, "agent_load");
      assert.ok(e.message.startsWith(`Agent script "${script}" failed: ${message}`), e.message);
      assert.equal(e.file, script);
      assert.equal(e.line, 2, call);
      return true;
    });
  }
});

Deno.test("the agent functions check their agent argument when called, from a library too (R131-1)", async () => {
  const promise = Promise.resolve(createAgent());
  const asAgent = promise as unknown as ReturnType<typeof createAgent>;
  const boss = createAgent({ name: "Boss" });
  assert.throws(() => delegate(boss, asAgent, "W", "x"), (e: LoadError) => {
    assert.equal(e.code, "invalid_input");
    assert.match(e.message, /^delegate: argument 2 \(the agent handed to\) is a Promise/);
    return true;
  });
  assert.deepEqual(boss.options, {}, "no tool registered");
  const sync = {
    agentStart: mod.agentStart,
    agentCurrent: mod.agentCurrent,
    socialize: mod.socialize,
  };
  for (const [name, fn] of Object.entries(sync)) {
    assert.throws(() => fn(asAgent), /argument 1 is a Promise/, name);
  }
  const later = {
    agentAsk: mod.agentAsk,
    agentChat: mod.agentChat,
    agentRespond: mod.agentRespond,
    agentPrompt: (a: typeof asAgent) => mod.agentPrompt(a, "user: hi"),
    agentJson: mod.agentJson,
    agentJsonFormat: (a: typeof asAgent) => mod.agentJsonFormat(a, {}),
    agentIterate: (a: typeof asAgent) => mod.agentIterate(a, "x", () => {}),
    agentIterateDictionary: (a: typeof asAgent) => mod.agentIterateDictionary(a, "x", () => {}),
  };
  for (const [name, fn] of Object.entries(later)) {
    await assert.rejects(() => fn(asAgent), /argument 1 is a Promise/, name);
  }
});

Deno.test("agent.ts that leaves or returns an agent whose fields are of another kind: the load fails naming it (R131-2)", async () => {
  await using d = await tempDir();
  clearAgentCache();
  put(d.path, "Agent/Ok/start_chat", "system: fine\n");
  const opts = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home") }, warn: () => {} };
  const cases: [string, string][] = [
    ["agent.options = null;", "left the agent broken: options is null, not an object"],
    [
      "agent.startChat = 'hi';",
      "left the agent broken: startChat is a string, not an array of messages",
    ],
    [
      "agent.startChat.push('hi');",
      "left the agent broken: startChat[1] is a string, not a message",
    ],
    [
      "agent.currentChat = {};",
      "left the agent broken: currentChat is an object, not an array of messages or null",
    ],
    ["agent.runtime = [];", "left the agent broken: runtime is an array, not an object"],
    [
      "agent.processException = true;",
      "left the agent broken: processException is a boolean, not a function or null",
    ],
    [
      "return { ...agent, options: null };",
      "returned something that is not an agent (options is null, not an object): return the agent it was given",
    ],
  ];
  for (const [i, [body, message]] of cases.entries()) {
    put(d.path, `Agent/Odd${i}/start_chat`, "system: x\n");
    const script = put(
      d.path,
      `Agent/Odd${i}/agent.ts`,
      `export default (api, agent) => { ${body} };\n`,
    );
    await assert.rejects(() => loadAgent(`Odd${i}`, opts), (e: LoadError) => {
      assert.equal(e.code, "agent_load");
      assert.ok(e.message.startsWith(`Agent script "${script}" ${message}`), e.message);
      assert.equal(e.file, script);
      return true;
    });
  }
  // fields of their kinds, other ones added: loads as before
  put(
    d.path,
    "Agent/Ok/agent.ts",
    "export default (api, agent) => { agent.options.x = 1; agent.extra = 2; };\n",
  );
  assert.equal((await loadAgent("Ok", opts)).options.x, 1);
});
