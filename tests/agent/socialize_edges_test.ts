/**
 * Edges of delegation: a tool that returns `{agent}` on an agent that never
 * socialized, `ASK_AGENTS` from the process environment, what the model sees
 * when a specialist cannot be loaded (or is named like an Object.prototype
 * member), concurrent first calls loading a
 * specialist once, and the receipt of a specialist on the task route.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentToolRegistry, chat, current } from "../../src/agent/agent.ts";
import { workflow } from "../../src/workflow/define.ts";
import { clearAgentCache, loadAgent, socialize } from "../../src/agent/mod.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { assertOneAtATime, outputs, society, wire } from "./delegation_support.ts";
import { put } from "../support/files.ts";

const exception = (o: Record<string, unknown>) => String(JSON.parse(String(o.content)).exception);

Deno.test("a tool returning {agent} runs it even when the caller never socialized", async () => {
  await using s = await society();
  const worker = s.make("Worker");
  current(worker).push({ role: "user", content: "fetch" });
  const boss = s.make("boss");
  boss.options.tools = {
    pass: {
      definition: { type: "function", function: { name: "pass", parameters: { type: "object" } } },
      impl: () => ({ agent: worker }),
    },
  };
  current(boss).push({ role: "user", content: "go" });
  s.plan(["pass", {}]);
  const r = await chat(boss);
  const out = outputs(r.messages)[0]!;
  assert.equal(out.content, "Worker heard: fetch");
  assert.equal((out.agent_meta as unknown[]).length, 1);
});

Deno.test("ASK_AGENTS comes from the process environment when the agent has no runtime env", async () => {
  await using s = await society({ delayMs: 200 });
  const boss = s.make("boss");
  boss.runtime = { cwd: s.dir.path };
  // no cache: with the process's env, it is the user's `~/.scout/var/cache/ask` (R77-6); a
  // SCOUT_HOME set in the process env instead would reach every test file running beside
  // this one (one process) while it lasts
  boss.options.persist = false;
  // the runner is made (ASK_AGENTS read) as the ask starts, before its first await: the
  // variable is set only that long, as other test files running beside this one start
  // children that inherit the process env (no key is needed: the provider is local)
  const saved = Deno.env.get("ASK_AGENTS");
  Deno.env.set("ASK_AGENTS", "1");
  let asked: Promise<void>;
  try {
    asked = assertOneAtATime(s, boss);
  } finally {
    if (saved === undefined) Deno.env.delete("ASK_AGENTS");
    else Deno.env.set("ASK_AGENTS", saved);
  }
  await asked;
});

Deno.test("unknown and broken specialists: the model sees one plain sentence each", async () => {
  await using s = await society();
  clearAgentCache();
  put(
    s.dir.path,
    "Agent/Broken/agent.ts",
    `export default () => { throw new Error("no oven"); };\n`,
  );
  put(s.dir.path, "Agent/constructor/start_chat", "system:\n\nYou are constructor\n");
  const boss = s.make("boss");
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(
    ["ask", { agent: "Nobody", prompt: "p" }],
    ["ask", { agent: "Broken", prompt: "p" }],
    ["ask", { agent: "toString", prompt: "p" }],
    ["ask", { agent: "constructor", prompt: "p" }],
  );
  const outs = outputs((await chat(boss)).messages);
  assert.equal(exception(outs[0]!), "No agent found with name Nobody");
  assert.match(exception(outs[1]!), /^Cannot load agent Broken: .*no oven/);
  assert.doesNotMatch(exception(outs[1]!), /No agent found/);
  // names spelled like Object.prototype members are agents like any: before, the society's
  // lookup took Object.prototype's member for a loaded specialist ("Cannot read properties
  // of undefined (reading 'tools')" for both)
  assert.equal(exception(outs[2]!), "No agent found with name toString");
  assert.equal(outs[3]!.content, "constructor heard: p");
  assert.deepEqual(Object.keys(boss.society), ["constructor"]);
});

Deno.test("concurrent first calls on one specialist load it once", async () => {
  await using s = await society();
  clearAgentCache();
  const counter = join(s.dir.path, "loads.txt");
  put(s.dir.path, "Agent/Worker/start_chat", "system:\n\nYou are Worker\n");
  put(
    s.dir.path,
    "Agent/Worker/agent.ts",
    `import { appendFileSync } from "node:fs";
export default () => { appendFileSync(${JSON.stringify(counter)}, "x"); };\n`,
  );
  const boss = s.make("boss");
  boss.options.tool_concurrency = 3;
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(
    ["ask", { agent: "Worker", prompt: "x1", conversation: "x" }],
    ["ask", { agent: "Worker", prompt: "y1", conversation: "y" }],
  );
  const outs = outputs((await chat(boss)).messages);
  assert.deepEqual(outs.map((o) => o.content), ["Worker heard: x1", "Worker heard: y1"]);
  assert.equal(Deno.readTextFileSync(counter), "x");
  assert.equal(wire(s.requestsOf("Worker")[0]!)[0]!.content, "You are Worker");
});

Deno.test("an agent that asks itself stops at SCOUT_MAX_AGENT_DEPTH: the deepest call is an error output", async () => {
  await using t = await tempDir();
  let requests = 0;
  await using srv = await startProviderServer({
    fallback: (r) => {
      const last = (r.body.messages as { role: string; content: unknown }[]).at(-1)!;
      // a model that always asks itself again, until a tool output comes back (or 50 requests)
      if (++requests > 50 || last.role === "tool") {
        return { text: `stopped: ${String(last.content).slice(0, 80)}` };
      }
      return {
        toolCalls: [{ name: "ask", id: "c1", arguments: { agent: "Loop", prompt: "again" } }],
      };
    },
  });
  put(t.path, "Agent/Loop/start_chat", "system:\n\nYou are Loop\n\nsocialize: true\n");
  clearAgentCache();
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "k", SCOUT_MAX_AGENT_DEPTH: "3" };
  const root = await loadAgent("Loop", {
    options: { backend: "openai", url: srv.url, model: "m", persist: false },
    runtime: { env, cwd: t.path },
  });
  current(root).push({ role: "user", content: "go" });
  const r = await chat(root);
  // root + 3 nested levels ask (4 requests); the deepest gets the refusal and answers; 3 answers back up
  assert.equal(srv.requests.length, 8);
  const toolOutputs = srv.requests.map((q) =>
    (q.body.messages as { role: string; content: string }[]).at(-1)!
  )
    .filter((m) => m.role === "tool").map((m) => m.content);
  assert.equal(toolOutputs.length, 4, toolOutputs.join("\n"));
  // the deepest level's call is refused; the levels above get the answers built on it
  assert.match(toolOutputs[0]!, /Cannot ask Loop: specialists may nest 3 levels deep/);
  assert.ok(toolOutputs.slice(1).every((c) => c.startsWith("stopped:")), toolOutputs.join("\n"));
  assert.match(r.text, /^stopped/);
});

Deno.test("a conversation id ending in .chat is refused: its log would collide with x's society directory", async () => {
  await using s = await society();
  const boss = s.make("boss");
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(
    ["ask", { agent: "Helper", prompt: "p1", conversation: "c1.chat" }],
    ["ask", { agent: "Helper", prompt: "p2", conversation: "c1" }],
  );
  put(s.dir.path, "Agent/Helper/start_chat", "system:\n\nYou are Helper\n");
  const outs = outputs((await chat(boss)).messages);
  assert.match(exception(outs[0]!), /"conversation" must not end in "\.chat"/);
  assert.equal(outs[1]!.content, "Helper heard: p2");
  assert.deepEqual(Object.keys(boss.chats), ["Helper/c1"]);
  assert.equal(s.requestsOf("Helper").length, 1);
});

Deno.test("a socializing agent whose workflow has an ask task keeps the ask tool of socialize", async () => {
  await using s = await society();
  const boss = s.make("boss");
  boss.workflow = workflow("AskingBoss", {
    tasks: {
      ask: { type: "string", inputs: {}, run: () => "the route's own task" },
      noop: { type: "string", inputs: {}, run: () => "ok" },
    },
  });
  boss.options.no_ask_override = true; // as a chat task's agent (§7.18): the direct route
  socialize(boss);
  const reg = agentToolRegistry(boss);
  assert.ok(reg.has("noop"));
  current(boss).push({ role: "user", content: "go" });
  put(s.dir.path, "Agent/Helper/start_chat", "system:\n\nYou are Helper\n");
  s.plan(["ask", { agent: "Helper", prompt: "hi" }]);
  const outs = outputs((await chat(boss)).messages);
  assert.equal(outs[0]!.content, "Helper heard: hi");
});

Deno.test("a task-route specialist that answers gives one receipt, job=<Workflow>/ask/<name>.chat, the short path (§3.2, R104-3)", async () => {
  await using s = await society();
  clearAgentCache();
  put(s.dir.path, "Agent/Routed/start_chat", "system:\n\nYou are Routed\n");
  put(
    s.dir.path,
    "Agent/Routed/workflow.ts",
    `export default (api) => api.workflow("RoutedAsk", {
  tasks: { ...api.chatTask("ask", () => "routed answer") },
});\n`,
  );
  const boss = s.make("boss");
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["ask", { agent: "Routed", prompt: "hi" }]);
  const [out] = outputs((await chat(boss)).messages);
  assert.equal(out!.content, "routed answer");
  const receipts = out!.agent_meta as { role: string; content: string }[];
  assert.equal(receipts.length, 1, JSON.stringify(receipts));
  assert.equal(receipts[0]!.role, "meta");
  assert.match(receipts[0]!.content, /^job=RoutedAsk\/ask\/[^/]+\.chat$/);
  assert.equal(s.requestsOf("Routed").length, 0);
});
