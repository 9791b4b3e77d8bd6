/**
 * Agent directories (`agents.md` §2.2/§2.3) in temp dirs with a temp
 * SCOUT_HOME: conventional files, `agent.ts` (also one that throws), a
 * malformed `start_chat`, Ruby-only and knowledge-base directories (one
 * warning), the kind order of the search roots and `SCOUT_AGENT_PATH`,
 * loading by path (§7.3), names (§7.2), the definition cache keyed by
 * directory (§7.17), and `agent:` lines delegating to a loaded agent.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { agentDelegate, clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { findAgent, listAgents } from "../../src/agent/find.ts";
import { knowledgeBaseOfAgent } from "../../src/kb/resolve.ts";
import { ask as llmAsk } from "../../src/llm/ask.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

function ctx(dir: string, extra: Record<string, string> = {}) {
  const warnings: string[] = [];
  const env = { SCOUT_HOME: join(dir, "home"), ...extra };
  return { warnings, opts: { cwd: join(dir, "w"), env, warn: (m: string) => warnings.push(m) } };
}

Deno.test("conventional files: start_chat compiled, workflow.ts (unnamed → the agent's name), agent.ts last", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Baker/start_chat", "system: You bake\n\nimport: extra.chat\n");
  put(w, "Agent/Baker/extra.chat", "user: imported line\n");
  put(
    w,
    "Agent/Baker/workflow.ts",
    `export default { tasks: { knead: { type: "string", inputs: {}, run: () => "kneaded" } } };\n`,
  );
  put(
    w,
    "Agent/Baker/agent.ts",
    `export default (api, agent) => {
  agent.options.temperature = 0.1;
  agent.startChat.push({ role: "system", content: "tasks: " + Object.keys(agent.workflow.tasks) });
  if (typeof api.loadAgent !== "function" || typeof api.workflow !== "function") throw new Error("api");
};\n`,
  );
  const { opts } = ctx(t.path);
  const a = await loadAgent("Baker", { ...opts, options: { model: "m1" } });
  assert.equal(a.name, "Baker");
  assert.equal(a.path, join(w, "Agent", "Baker"));
  assert.equal(a.workflow?.name, "Baker");
  assert.deepEqual(a.options, { model: "m1", temperature: 0.1 });
  assert.deepEqual(a.startChat.map((m) => [m.role, m.content]), [
    ["system", "You bake"],
    ["user", "imported line"],
    ["system", "tasks: knead"],
  ]);
  assert.equal(a.currentChat, null);
});

Deno.test("agent.ts that throws, or returns a non-agent: one clear error naming the file", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Broken/start_chat", "system: x\n");
  put(w, "Agent/Broken/agent.ts", `export default () => { throw new Error("no oven"); };\n`);
  put(w, "Agent/Odd/agent.ts", `export default () => 42;\n`);
  const { opts } = ctx(t.path);
  await assert.rejects(() => loadAgent("Broken", opts), (e: Error & { code?: string }) => {
    assert.equal(e.code, "agent_load");
    assert.match(e.message, /Agent script ".*Agent\/Broken\/agent\.ts" failed: no oven/);
    return true;
  });
  await assert.rejects(() => loadAgent("Odd", opts), /returned something that is not an agent/);
  // a partial record is no agent either: said at load, naming the script and what it lacks
  put(w, "Agent/Half/agent.ts", `export default (_api, a) => ({ startChat: a.startChat });\n`);
  await assert.rejects(() => loadAgent("Half", opts), (e: Error & { code?: string }) => {
    assert.equal(e.code, "agent_load");
    assert.match(
      e.message,
      /Agent script ".*Agent\/Half\/agent\.ts" returned something that is not an agent \(it has no options, runtime, society, chats\)/,
    );
    return true;
  });
  // a script that cannot be imported: the runtime's message, without its terminal colours
  put(w, "Agent/Imp/agent.ts", `import x from "./nothere.ts";\nexport default () => x;\n`);
  await assert.rejects(() => loadAgent("Imp", opts), (e: Error & { code?: string }) => {
    assert.equal(e.code, "agent_load");
    assert.match(e.message, /Cannot load agent script ".*Imp\/agent\.ts": .*nothere\.ts/);
    assert.ok(!e.message.includes("\u001b") && !e.message.includes("\n"), e.message);
    assert.equal((e as { line?: number }).line, 1);
    return true;
  });
});

Deno.test("malformed start_chat: the compile error names the file and line", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Bad/start_chat", "system: ok\n\nbogus_role: x\n");
  const { opts } = ctx(t.path);
  await assert.rejects(
    () => loadAgent("Bad", opts),
    (e: Error & { file?: string; line?: number }) => {
      assert.match(e.message, /Unknown role "bogus_role"/);
      assert.equal(e.file, join(w, "Agent", "Bad", "start_chat"));
      assert.equal(e.line, 3);
      return true;
    },
  );
});

Deno.test("an agent directory without agent files loads as Ruby's rule says, with one warning; one with files gets none", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  Deno.mkdirSync(join(w, "Agent", "Shad"), { recursive: true }); // a stray mkdir
  put(join(t.path, "home"), "Agent/Shad/start_chat", "system: the real one\n");
  const { opts, warnings } = ctx(t.path);
  const a = await loadAgent("Shad", opts);
  await loadAgent("Shad", opts);
  assert.equal(a.path, join(w, "Agent", "Shad")); // the first existing directory (§2.2)
  assert.deepEqual(a.startChat, []);
  assert.deepEqual(warnings, [
    `Agent "Shad" (${join(w, "Agent", "Shad")}) holds no agent files (start_chat, ` +
    "workflow.ts, agent.ts, knowledge_base/): it runs with no start chat and no tools",
  ]);
  put(w, "Agent/Full/start_chat", "system: s\n");
  put(w, "Agent/KbOnly/knowledge_base/README.md", "\n");
  await loadAgent("Full", opts);
  await loadAgent("KbOnly", opts);
  assert.equal(warnings.length, 1, warnings.join("\n"));
});

Deno.test("Ruby-only files: the start chat loads, one warning, once; knowledge_base/ is kept without a warning", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Rubyist/start_chat", "system: from ruby land\n");
  put(w, "Agent/Rubyist/workflow.rb", "module X; end\n");
  put(w, "Agent/Rubyist/agent.rb", "\n");
  put(w, "Agent/Rubyist/python/task.py", "\n");
  put(w, "Agent/Rubyist/knowledge_base/README.md", "\n");
  const { opts, warnings } = ctx(t.path);
  const a = await loadAgent("Rubyist", opts);
  await loadAgent("Rubyist", opts);
  assert.deepEqual(a.startChat, [{ role: "system", content: "from ruby land" }]);
  assert.equal(a.workflow, null);
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(
    warnings[0]!,
    /: Ruby and Python files are not loaded \(workflow\.rb, agent\.rb, python\/\)/,
  );
  assert.equal(a.knowledgeBase, join(w, "Agent", "Rubyist", "knowledge_base"));
});

Deno.test("a python-only agent's warning says Python files, not Ruby ones (R149-3)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Py/start_chat", "system: hi\n");
  put(w, "Agent/Py/python/t.py", "\n");
  put(w, "Agent/Rb/start_chat", "system: hi\n");
  put(w, "Agent/Rb/agent.rb", "\n");
  const { opts, warnings } = ctx(t.path);
  await loadAgent("Py", opts);
  await loadAgent("Rb", opts);
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(warnings[0]!, /\): Python files are not loaded \(python\/\): the tools/);
  assert.match(warnings[1]!, /\): Ruby files are not loaded \(agent\.rb\): the tools/);
});

Deno.test("search: kind order over all roots, SCOUT_AGENT_PATH first, workflows/<name> preferred", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  const home = join(t.path, "home");
  const extra = join(t.path, "extra");
  put(w, "var/Agent/K/start_chat", "system: cwd var\n");
  put(home, "Agent/K/start_chat", "system: home Agent\n");
  const { opts } = ctx(t.path);
  // Agent/ on any root beats var/Agent/ on the first root (Ruby's kind order)
  assert.equal(findAgent("K", opts).path, join(home, "Agent", "K"));
  put(w, "Agent/K/start_chat", "system: cwd Agent\n");
  assert.equal(findAgent("K", opts).path, join(w, "Agent", "K"));
  put(extra, "Agent/K/start_chat", "system: extra\n");
  const withPath = { ...opts, env: { ...opts.env, SCOUT_AGENT_PATH: extra } };
  assert.equal(findAgent("K", withPath).path, join(extra, "Agent", "K"));
  const a = await loadAgent("K", withPath);
  assert.deepEqual(a.startChat, [{ role: "system", content: "extra" }]);
  // a bare workflows/<name> directory: path there, an introduce: line as start chat
  put(
    home,
    "workflows/Flow/workflow.ts",
    `export default (api) => api.workflow("Flow", { description: "d", tasks: {} });\n`,
  );
  const f = await loadAgent("Flow", opts);
  assert.equal(f.path, join(home, "workflows", "Flow"));
  assert.deepEqual(f.startChat, [{ role: "introduce", content: "Flow" }]);
  assert.deepEqual(
    listAgents(withPath).map((l) => [l.name, l.path]),
    [["Flow", join(home, "workflows", "Flow")], ["K", join(extra, "Agent", "K")]],
  );
  // list shows what find resolves: an empty Agent/S in ./ shadows var/Agent/S in SCOUT_HOME
  put(home, "var/Agent/S/start_chat", "system: shadowed\n");
  mkdirSync(join(w, "Agent", "S"), { recursive: true });
  mkdirSync(join(w, "Agent", "Bare"), { recursive: true });
  const s = listAgents(opts).find((l) => l.name === "S")!;
  assert.deepEqual([s.path, s.kind, s.files], [findAgent("S", opts).path, "Agent", []]);
  assert.equal(s.path, join(w, "Agent", "S"));
  // a directory without any conventional file is not listed (find still resolves it, as Ruby)
  assert.ok(!listAgents(opts).some((l) => l.name === "Bare"));
});

Deno.test("workflows/<name> and Agent/<name> both there: start chat and knowledge base from Agent/ first, path the workflows dir (§2.2 steps 4-6; R80-8)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const home = join(t.path, "home");
  const { opts } = ctx(t.path);
  put(
    home,
    "workflows/Planner/workflow.ts",
    `export default (api) => api.workflow("Planner", { description: "plans", tasks: {} });\n`,
  );
  put(home, "workflows/Planner/start_chat", "system: You are the PLANNER from workflows dir\n");
  mkdirSync(join(home, "workflows", "Planner", "knowledge_base"), { recursive: true });
  put(home, "Agent/Planner/start_chat", "system: You are the PLANNER from Agent dir\n");
  mkdirSync(join(home, "Agent", "Planner", "knowledge_base"), { recursive: true });
  // Ruby's first load_agent in a process reads workflows/Planner (its agent_path is reassigned
  // inside the workflow memo); every later one reads Agent/Planner, as the spec and this port.
  const a = await loadAgent("Planner", opts);
  assert.equal(a.path, join(home, "workflows", "Planner"));
  assert.deepEqual(a.startChat, [{
    role: "system",
    content: "You are the PLANNER from Agent dir",
  }]);
  const loc = findAgent("Planner", opts);
  assert.equal(knowledgeBaseOfAgent(loc), join(home, "Agent", "Planner", "knowledge_base"));
  // without them in Agent/, the workflows dir's (Ruby agrees on every load)
  clearAgentCache();
  await Deno.remove(join(home, "Agent", "Planner", "start_chat"));
  await Deno.remove(join(home, "Agent", "Planner", "knowledge_base"));
  const b = await loadAgent("Planner", opts);
  assert.deepEqual(b.startChat, [{
    role: "system",
    content: "You are the PLANNER from workflows dir",
  }]);
  assert.equal(knowledgeBaseOfAgent(loc), join(home, "workflows", "Planner", "knowledge_base"));
});

Deno.test("§7.3 loading by path returns an agent (agent.ts run on it)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "somewhere/Helper/start_chat", "system: by path\n");
  put(
    w,
    "somewhere/Helper/agent.ts",
    `export default (_api, a) => { a.options.tagged = "yes"; };\n`,
  );
  const { opts } = ctx(t.path);
  const a = await loadAgent("./somewhere/Helper", opts);
  // Ruby's load_agent returned the script's load status (true), not an agent
  assert.equal(typeof a, "object");
  assert.ok(Array.isArray(a.startChat));
  assert.equal(a.name, "Helper");
  assert.equal(a.path, join(w, "somewhere", "Helper"));
  assert.deepEqual(a.startChat, [{ role: "system", content: "by path" }]);
  assert.equal(a.options.tagged, "yes");
  await assert.rejects(() => loadAgent("./nowhere", opts), /No agent directory at "\.\/nowhere"/);
});

Deno.test("§7.2 names: digits allowed; '.'/'..' segments, spaces and escapes rejected", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Worker2/start_chat", "system: two\n");
  const { opts } = ctx(t.path);
  // Ruby rejected digits (^[a-z_.-]+$)
  assert.equal((await loadAgent("Worker2", opts)).name, "Worker2");
  for (const bad of ["a/../../etc", "Agent/./x", "a b", "x/..", "", "a//b"]) {
    await assert.rejects(() => loadAgent(bad, opts), /Invalid agent name/, bad);
  }
  // a shell's completion ends a directory with "/": the same name, the same agent
  assert.equal(findAgent("Worker2/", opts).path, join(w, "Agent", "Worker2"));
  assert.equal(findAgent("Agent/Worker2//", opts).path, join(w, "Agent", "Worker2"));
  assert.equal((await loadAgent("Worker2/", opts)).name, "Worker2");
  // ../x is a path (not a name): a clear error, nothing outside is searched by name
  await assert.rejects(() => loadAgent("../x", opts), /No agent directory at "\.\.\/x"/);
  await assert.rejects(() => loadAgent("Nobody", opts), /No agent found with name Nobody/);
});

Deno.test("§7.17 definitions are cached by resolved directory: the same name elsewhere is its own agent", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const one = join(t.path, "one");
  const two = join(t.path, "two");
  for (const [root, tag] of [[one, "first"], [two, "second"]] as const) {
    put(root, "Agent/Same/start_chat", `system: ${tag}\n`);
    put(
      root,
      "Agent/Same/workflow.ts",
      `export default (api) => api.workflow("Same", { tasks: { ${tag}: { type: "string", inputs: {}, run: () => "${tag}" } } });\n`,
    );
  }
  const env = { SCOUT_HOME: join(t.path, "home") };
  const a1 = await loadAgent("Same", { cwd: one, env });
  const a2 = await loadAgent("Same", { cwd: two, env });
  // Ruby cached the workflow per name: the second agent got the first one's workflow
  assert.equal(a2.path, join(two, "Agent", "Same"));
  assert.deepEqual(Object.keys(a2.workflow!.tasks), ["second"]);
  assert.deepEqual(a2.startChat, [{ role: "system", content: "second" }]);
  assert.deepEqual(Object.keys(a1.workflow!.tasks), ["first"]);
  // same directory: the definition is shared, each agent is fresh
  const a1b = await loadAgent("Same", { cwd: one, env });
  assert.equal(a1b.workflow, a1.workflow);
  assert.notEqual(a1b.startChat, a1.startChat);
  a1b.startChat.push({ role: "user", content: "mine" });
  assert.equal(a1.startChat.length, 1);
});

Deno.test("agent: lines delegate to the loaded agent (its start chat first) through the delegate hook", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  clearAgentCache();
  const w = join(t.path, "w");
  put(w, "Agent/Helper/start_chat", `system: I am the helper\n\nbackend: openai\n`);
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  srv.script({ text: "helped" });
  const r = await llmAsk(
    [{ role: "agent", content: "Helper" }, { role: "user", content: "help" }],
    {
      env,
      cwd: w,
      url: srv.url,
      model: "m",
      delegate: agentDelegate({ cwd: w, env }),
    },
  );
  assert.equal(r.text, "helped");
  const sent = srv.requests[0]!.body.messages as { role: string; content: string }[];
  assert.deepEqual(sent.map((m) => [m.role, m.content]), [
    ["system", "I am the helper"],
    ["user", "help"],
  ]);
  // without a hook the line is an error, not silently ignored
  await assert.rejects(
    () => llmAsk([{ role: "agent", content: "Helper" }, { role: "user", content: "x" }], { env }),
    /Agents are not available here/,
  );
});
