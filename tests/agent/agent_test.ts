/**
 * The agent functions against the loopback provider: the live chat, the
 * direct route (tools from call ∪ agent ∪ workflow, option precedence,
 * `persist: false` §7.4, `processException`), `prompt`, the structured
 * answers (`iterate` on the current endpoint §7.6), the start-prefix slice
 * (§7.11) and the `ask`-task route with its recursion guard (§7.18).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import type { Message } from "../../src/chat/types.ts";
import {
  ask,
  chat,
  createAgent,
  current,
  prompt,
  sinceStart,
  start,
} from "../../src/agent/agent.ts";
import { iterate, iterateDictionary, json, jsonFormat } from "../../src/agent/structured.ts";
import type { Agent } from "../../src/agent/types.ts";
import { input, type Workflow, workflow } from "../../src/workflow/define.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";

function setup(t: { path: string }, srv: ProviderServer, init: Partial<Agent> = {}) {
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  return createAgent({
    ...init,
    options: { backend: "openai", url: srv.url, model: "agent-model", ...(init.options ?? {}) },
    runtime: { env, cwd: t.path, ...(init.runtime ?? {}) },
  });
}

function lastUser(body: Record<string, unknown>): unknown {
  const msgs = body.messages as { role: string; content: unknown }[];
  return msgs.filter((m) => m.role === "user").at(-1)?.content;
}

Deno.test("start shares the start-chat objects; chat appends the new messages; ask appends nothing", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const sys: Message = { role: "system", content: "Be brief" };
  const a = setup(t, srv, { startChat: [sys] });
  assert.equal(a.currentChat, null);
  assert.equal(current(a)[0], sys); // same object, a new array
  assert.notEqual(a.currentChat, a.startChat);
  current(a).push({ role: "user", content: "hi" });
  srv.script({ text: "hello" }, { text: "again" });
  const r = await chat(a);
  assert.equal(r.text, "hello");
  assert.deepEqual(a.currentChat!.map((m) => m.role), ["system", "user", "meta", "assistant"]);
  const before = a.currentChat!.length;
  const r2 = await ask(a);
  assert.equal(r2.text, "again");
  assert.equal(a.currentChat!.length, before);
  assert.deepEqual(a.startChat, [sys]); // never touched
  const adopted: Message[] = [{ role: "user", content: "x" }];
  assert.equal(start(a, adopted), adopted); // start(chat) adopts the array itself
});

Deno.test("option precedence: chat lines > call options > agent options", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = setup(t, srv);
  srv.script({ text: "1" }, { text: "2" }, { text: "3" });
  await ask(a, [{ role: "user", content: "q1" }]);
  await ask(a, [{ role: "user", content: "q2" }], { model: "call-model" });
  await ask(a, [{ role: "model", content: "chat-model" }, { role: "user", content: "q3" }], {
    model: "call-model",
  });
  assert.deepEqual(srv.requests.map((r) => r.body.model), [
    "agent-model",
    "call-model",
    "chat-model",
  ]);
});

Deno.test("§7.4 persist: false in the agent options disables the inference cache; the default caches", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "same" }) });
  const q = [{ role: "user", content: "cache me" }];
  const cached = setup(t, srv);
  await ask(cached, [...q]);
  const second = await ask(cached, [...q]);
  assert.equal(srv.requests.length, 1); // the default: the second ask is a cache hit
  assert.equal(second.ask?.cached, true);
  const uncached = setup(t, srv, { options: { persist: false } });
  await ask(uncached, [...q]);
  const again = await ask(uncached, [...q]);
  assert.equal(srv.requests.length, 3); // persist: false → both asks reach the provider
  assert.equal(again.ask?.cached, false);
});

Deno.test("direct route tools: call ∪ agent (JSON string) ∪ workflow tasks, later sources win", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const wf = workflow("AgentToolsWf", {
    tasks: {
      shared: {
        type: "string",
        description: "from the workflow",
        inputs: { x: input.string({ required: true }) },
        run: ({ x }) => `wf:${x}`,
      },
    },
  });
  const agentTool = JSON.stringify([{
    type: "function",
    name: "shared",
    description: "from the agent",
    parameters: { type: "object", properties: {} },
  }, {
    type: "function",
    name: "agent_only",
    description: "agent tool",
    parameters: { type: "object", properties: {} },
  }]);
  const a = setup(t, srv, { workflow: wf, options: { tools: agentTool } });
  const callTools = {
    call_only: [() => "c", {
      name: "call_only",
      description: "call tool",
      parameters: { type: "object", properties: {} },
    }] as const,
  };
  srv.script(
    { toolCalls: [{ name: "shared", arguments: { x: "7" }, id: "c1" }] },
    { text: "done" },
  );
  const r = await ask(a, [{ role: "user", content: "go" }], { tools: callTools });
  assert.equal(r.text, "done");
  const tools = srv.requests[0]!.body.tools as {
    function: { name: string; description: string };
  }[];
  const byName = Object.fromEntries(tools.map((x) => [x.function.name, x.function.description]));
  assert.deepEqual(Object.keys(byName).sort(), ["agent_only", "call_only", "shared"]);
  assert.match(byName.shared!, /from the workflow/); // the workflow overrides the agent's
  const out = r.messages.find((m) => m.role === "function_call_output");
  assert.match(String(out?.content), /wf:7/);
});

Deno.test("agent: lines are removed from the messages in place (no re-dispatch)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = setup(t, srv);
  const msgs: Message[] = [{ role: "agent", content: "Other" }, { role: "user", content: "q" }];
  srv.script({ text: "direct" });
  assert.equal((await ask(a, msgs)).text, "direct");
  assert.deepEqual(msgs.map((m) => m.role), ["user"]);
});

Deno.test("processException: true retries the whole ask, false rethrows", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const seen: unknown[] = [];
  const a = setup(t, srv, {
    processException: (e) => {
      seen.push(e);
      return seen.length < 2;
    },
    options: { max_retries: 0, persist: false },
  });
  srv.script({ status: 400, message: "bad one" }, { text: "second try" });
  assert.equal((await ask(a, [{ role: "user", content: "q" }])).text, "second try");
  assert.equal(seen.length, 1);
  srv.script({ status: 400, message: "bad two" }, { text: "never reached" });
  await assert.rejects(() => ask(a, [{ role: "user", content: "q" }]), /bad two/);
  assert.equal(seen.length, 2);
  assert.equal(srv.pending(), 1); // false: rethrown, no retry
});

Deno.test("prompt parses chat syntax and prefixes the start chat, not the live chat", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = setup(t, srv, { startChat: [{ role: "system", content: "S" }] });
  current(a).push({ role: "user", content: "live only" });
  srv.script({ text: "ok" });
  await prompt(a, "system: extra\n\nuser: the question");
  const sent = srv.requests[0]!.body.messages as { role: string; content: string }[];
  assert.deepEqual(sent.map((m) => [m.role, m.content]), [
    ["system", "S"],
    ["system", "extra"],
    ["user", "the question"],
  ]);
});

Deno.test("json and jsonFormat: the format goes out, the answer is parsed, formats are restored", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = setup(t, srv);
  const earlier: Message = { role: "format", content: "json" };
  current(a).push({ role: "user", content: "q" });
  srv.script({ text: '```json\n{"content": [1, 2]}\n```' });
  assert.deepEqual(await json(a), [1, 2]);
  assert.deepEqual(srv.requests[0]!.body.response_format, { type: "json_object" });
  assert.ok(!a.currentChat!.some((m) => m.role === "format"));
  current(a).push(earlier);
  srv.script({ text: '{"name": "Ada"}' });
  const schema = { name: "person", type: "object", properties: { name: { type: "string" } } };
  assert.deepEqual(await jsonFormat(a, schema), { name: "Ada" });
  const rf = srv.requests[1]!.body.response_format as {
    type: string;
    json_schema: { name: string };
  };
  assert.equal(rf.type, "json_schema");
  assert.equal(rf.json_schema.name, "person");
  assert.equal(a.currentChat!.at(-1), earlier); // the earlier format re-appended at the end
  srv.script({ text: "not json" });
  await assert.rejects(() => json(a), /not JSON/);
});

Deno.test("§7.6 iterate uses structured output on the agent's own endpoint (no 'responses' endpoint needed)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = setup(t, srv);
  srv.script({ text: '{"content": ["flour", "eggs"]}' });
  const items: string[] = [];
  const out = await iterate(a, "List the ingredients", (item, i) => {
    items.push(`${i}:${item}`);
  });
  assert.deepEqual(out, ["flour", "eggs"]);
  assert.deepEqual(items, ["0:flour", "1:eggs"]);
  const req = srv.requests[0]!;
  // Ruby forced `endpoint: responses` (failing without such a file) and the Responses API;
  // here the request goes to the agent's backend with a json_schema response format
  assert.equal(req.protocol, "chat");
  assert.equal(req.body.model, "agent-model");
  const rf = req.body.response_format as { type: string; json_schema: { schema: unknown } };
  assert.equal(rf.type, "json_schema");
  assert.deepEqual((rf.json_schema.schema as { required: string[] }).required, ["content"]);
  assert.equal(lastUser(req.body), "List the ingredients");
});

Deno.test("iterateDictionary: a string map, fn per entry (in order or in parallel)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const a = setup(t, srv);
  srv.script({ text: '{"a": "1", "b": "2"}' }, { text: '{"c": "3"}' });
  const seen: string[] = [];
  assert.deepEqual(await iterateDictionary(a, "Map it", (k, v) => seen.push(k + v)), {
    a: "1",
    b: "2",
  });
  assert.deepEqual(seen, ["a1", "b2"]);
  await iterateDictionary(a, "More", (k, v) => seen.push(k + v), { parallel: true });
  assert.deepEqual(seen, ["a1", "b2", "c3"]);
});

Deno.test("§7.11 sinceStart slices the start prefix; a later message equal to a start message is kept", () => {
  const sys: Message = { role: "system", content: "S" };
  const a = createAgent({ startChat: [sys] });
  start(a);
  const repeated: Message = { role: "system", content: "S" }; // value-equal to the start message
  a.currentChat!.push({ role: "user", content: "u" }, repeated);
  assert.deepEqual(sinceStart(a), [{ role: "user", content: "u" }, repeated]);
  // a value difference (Ruby's currentChat − startChat) would have dropped it:
  const diff = a.currentChat!.filter((m) =>
    !a.startChat.some((s) => JSON.stringify(s) === JSON.stringify(m))
  );
  assert.equal(diff.length, 1);
  // an adopted (copied) chat: the value-equal prefix is sliced
  start(a, [{ role: "system", content: "S" }, { role: "user", content: "v" }]);
  assert.deepEqual(sinceStart(a), [{ role: "user", content: "v" }]);
});

let bodyRuns = 0;
let routeAgentInit: Partial<Agent> = {};
const routeWf: Workflow = workflow("AgentAskRoute", {
  tasks: {
    ask: {
      type: "chat",
      inputs: { chat: input.text({ required: true }) },
      run: async ({ chat: text }) => {
        if (++bodyRuns > 3) throw new Error("unbounded recursion of the ask task");
        // the body loads an agent with the same workflow and asks it (Ruby's Critic shape)
        const inner = createAgent({ ...routeAgentInit, workflow: routeWf });
        return (await ask(inner, parse(String(text)))).messages;
      },
    },
  },
});

Deno.test("§7.18 task route: the ask task runs as a job with sticky options; an ask inside it goes direct", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  const base = setup(t, srv);
  routeAgentInit = { options: base.options, runtime: base.runtime };
  bodyRuns = 0;
  const a = createAgent({ ...routeAgentInit, workflow: routeWf });
  srv.script({ text: "from the job" });
  const r = await ask(a, [{ role: "user", content: "route me" }], { temperature: 0.5 });
  assert.equal(r.text, "from the job");
  assert.equal(bodyRuns, 1); // without the guard the inner ask would start another ask job
  assert.equal(srv.requests.length, 1);
  assert.ok(r.job && a.job === r.job);
  assert.equal(r.messages[0]!.role, "meta");
  assert.equal(r.messages[0]!.content, `job=${r.job.shortPath}`);
  assert.ok(!r.messages.slice(1).some((m) => m.role === "meta")); // token metas projected away
  const input = String(r.job.inputs.chat);
  assert.match(input, /sticky_option:\n\nmodel agent-model/);
  assert.match(input, /sticky_option:\n\ntemperature 0\.5\s*$/);
  // same chat ⇒ same job ⇒ the cached answer, no new request
  const again = await ask(a, [{ role: "user", content: "route me" }], { temperature: 0.5 });
  assert.equal(again.text, "from the job");
  assert.equal(srv.requests.length, 1);
  // no_ask_override takes the direct route
  srv.script({ text: "direct" });
  const d = createAgent({ ...routeAgentInit, workflow: routeWf });
  d.options = { ...d.options, no_ask_override: true };
  assert.equal((await ask(d, [{ role: "user", content: "route me" }])).text, "direct");
  assert.equal(bodyRuns, 1);
});
