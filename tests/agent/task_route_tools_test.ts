/**
 * Tools on the `ask`-task route (`agents.md` §1.4 step 2, §4.5): the model the
 * job runs is offered the tools the direct route offers — the agent's own
 * (`agent.ts`, `tool:` lines of its start chat, its workflow's exports), the
 * ones the application gave the loaded agent (`options.tools`, `socialize`,
 * `delegate`) and the call's `tools` — and calls to them run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { chat, createAgent, current } from "../../src/agent/agent.ts";
import { delegate } from "../../src/agent/delegate.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { socialize } from "../../src/agent/socialize.ts";
import { chatTask } from "../../src/agent/chat_task.ts";
import type { Agent } from "../../src/agent/types.ts";
import { workflow } from "../../src/workflow/define.ts";
import { type RecordedRequest, startProviderServer } from "../support/provider_server.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import { shape, socialTaskWorkflowText, wire } from "./delegation_support.ts";
import { put } from "../support/files.ts";

const noParams = { type: "object", properties: {} };

/** A tool whose runs are counted in `ran`. */
function counted(name: string, ran: string[]) {
  return [() => {
    ran.push(name);
    return `${name} ran`;
  }, { name, description: `the ${name}`, parameters: noParams }] as const;
}

/**
 * `Agent/<name>`: a start chat with a `tool:` line, an `agent.ts` adding
 * `script_tool`, and a workflow whose chat task `ask` runs the agent again on
 * the job's chat (exporting only `noop`); `lines` are added to its start
 * chat. Each test names its workflow apart
 * (see tests/cli/agent_cli_task_route_test.ts).
 */
function toolbox(root: string, name: string, lines = ""): string {
  const here = join(root, "Agent", name);
  put(here, "start_chat", `system: You are ${name}\n\ntool: Baking whisk\n\n${lines}`);
  put(here, "workflow.ts", socialTaskWorkflowText(name, here));
  put(
    here,
    "agent.ts",
    `export default (_api, agent) => {
  agent.options.tools = { ...(agent.options.tools ?? {}), script_tool: [() => "script ran", {
    name: "script_tool", description: "from agent.ts", parameters: { type: "object", properties: {} },
  }] };
};\n`,
  );
  put(root, "Agent/Helper/start_chat", "system: You are Helper\n");
  clearAgentCache();
  return here;
}

/** The function names a request offered. */
function offered(r: RecordedRequest): string[] {
  const tools = (r.body.tools ?? []) as { function?: { name: string }; name?: string }[];
  return tools.map((t) => t.function?.name ?? t.name ?? "?").sort();
}

/** A model that calls `calls` on its first turn, then answers "done". */
async function model(calls: (string | [string, Record<string, unknown>])[]) {
  return await startProviderServer({
    fallback: (req) => {
      const msgs = wire(req);
      if (msgs.at(-1)!.role === "tool") return { text: "done" };
      if (String(msgs[0]?.content).startsWith("You are Helper")) return { text: "helped" };
      return {
        toolCalls: calls.map((c, i) => {
          const [name, args] = typeof c === "string" ? [c, {}] : c;
          return { name, arguments: args, id: `t${i + 1}` };
        }),
      };
    },
  });
}

async function loaded(
  root: string,
  here: string,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<Agent> {
  const runtime = { cwd: root, env: { SCOUT_HOME: join(root, "home"), OPENAI_API_KEY: "sk-x" } };
  const options = { backend: "openai", url, model: "m", persist: false, ...extra };
  return await loadAgent(here, { runtime, options });
}

const OWN = ["noop", "script_tool", "whisk"];

Deno.test("task route: the agent's own tools (agent.ts, tool: lines, workflow) reach the job's model, as on the direct route", async () => {
  await using t = await tempDir();
  await using srv = await model(["script_tool"]);
  const here = toolbox(t.path, "OwnToolsRoute");
  for (const route of ["direct", "task"] as const) {
    const a = await loaded(
      t.path,
      here,
      srv.url,
      route === "direct" ? { no_ask_override: true } : {},
    );
    current(a).push({ role: "user", content: `own tools, ${route}` });
    const before = srv.requests.length;
    const r = await chat(a);
    assert.equal(r.text, "done");
    assert.equal(Boolean(r.job), route === "task");
    assert.deepEqual(offered(srv.requests[before]!), OWN, route);
    assert.match(
      String(r.messages.find((m) => m.role === "function_call_output")?.content),
      /script ran/,
    );
  }
});

Deno.test("task route: tools the application gives the loaded agent, and the call's tools, reach the job's model and run", async () => {
  await using t = await tempDir();
  const calls = ["app_tool", "call_tool"];
  await using srv = await model(calls);
  const here = toolbox(t.path, "AppToolsRoute");
  const seen: Record<string, { offered: string[]; ran: string[]; outputs: string[] }> = {};
  for (const route of ["direct", "task"] as const) {
    const ran: string[] = [];
    const a = await loaded(
      t.path,
      here,
      srv.url,
      route === "direct" ? { no_ask_override: true } : {},
    );
    a.options.tools = { ...(a.options.tools as object), app_tool: counted("app_tool", ran) };
    current(a).push({ role: "user", content: `app tools, ${route}` });
    const before = srv.requests.length;
    const r = await chat(a, { tools: { call_tool: counted("call_tool", ran) } });
    seen[route] = {
      offered: offered(srv.requests[before]!),
      ran,
      outputs: r.messages.filter((m) => m.role === "function_call_output").map((m) =>
        JSON.parse(String(m.content)).content
      ),
    };
  }
  const want = {
    offered: [...calls, ...OWN].sort(),
    ran: calls,
    outputs: ["app_tool ran", "call_tool ran"],
  };
  assert.deepEqual(seen.direct, want);
  assert.deepEqual(seen.task, want);
});

Deno.test("task route: socialize and delegate on the loaded agent reach the job's model; the job's agent runs them", async () => {
  await using t = await tempDir();
  await using srv = await model([
    ["ask", { agent: "Helper", prompt: "help" }],
    ["hand_off_to_helper", { message: "take it" }],
  ]);
  const here = toolbox(t.path, "SocialRoute");
  for (const route of ["direct", "task"] as const) {
    const a = await loaded(
      t.path,
      here,
      srv.url,
      route === "direct" ? { no_ask_override: true } : {},
    );
    socialize(a);
    const { tools: _t, no_ask_override: _n, ...options } = a.options;
    const helper = createAgent({
      name: "Helper",
      options,
      runtime: a.runtime,
      startChat: [{ role: "system", content: "You are Helper" }],
    });
    delegate(a, helper, "helper", "Hand work to the helper");
    current(a).push({ role: "user", content: `social, ${route}` });
    const before = srv.requests.length;
    const r = await chat(a);
    assert.deepEqual(
      offered(srv.requests[before]!),
      ["ask", "hand_off_to_helper", ...OWN].sort(),
      route,
    );
    const outs = r.messages.filter((m) => m.role === "function_call_output").map((m) =>
      JSON.parse(String(m.content))
    );
    assert.deepEqual(outs.map((o) => o.content), ["helped", "helped"], route);
    // the hand-off reaches the one live agent it was given (§3.5), on either route
    assert.deepEqual(shape(helper.currentChat), [
      "system You are Helper",
      "user take it",
      "meta",
      "assistant helped",
    ]);
    if (route === "direct") {
      assert.deepEqual(Object.keys(a.chats).sort(), ["Helper/_oneshot-1", "helper/default"]);
      continue;
    }
    // on the task route the job's agent holds the conversations: they are logged with the job
    assert.deepEqual(Object.keys(a.chats), []);
    assert.deepEqual((await listJobFiles(r.job!.path, "log")).sort(), [
      "log/agent.chat",
      "log/society/Helper/_oneshot-1.chat",
      "log/society/helper/default.chat",
    ]);
  }
});

Deno.test("task route: the caller's tools go to the agents of its own job, not to a chat task its model runs as a tool", async () => {
  await using t = await tempDir();
  const seen: string[][] = [];
  workflow("ToolScopeReview", {
    jobsDir: join(t.path, "jobs"),
    tasks: chatTask("review", async ({ agent }) => {
      const reviewer = await agent(null, { tooling: false });
      seen.push(Object.keys(reviewer.options.tools ?? {}));
      return "reviewed";
    }),
  });
  await using srv = await model(["app_tool", ["review", { chat: "user:\n\nlook\n" }]]);
  const here = toolbox(t.path, "ToolScopeRoute");
  const ran: string[] = [];
  const a = await loaded(t.path, here, srv.url);
  a.options.tools = { ...(a.options.tools as object), app_tool: counted("app_tool", ran) };
  current(a).push({ role: "tool", content: "ToolScopeReview review" }, {
    role: "user",
    content: "review it",
  });
  const r = await chat(a);
  assert.ok(r.job);
  assert.deepEqual(ran, ["app_tool"]);
  assert.deepEqual(seen, [[]]);
});

Deno.test("task route: an mcp: line of the start chat reaches the job's model, and its tool runs", async () => {
  await using t = await tempDir();
  await using srv = await model([["echo", { text: "over MCP" }]]);
  const server = `${DENO} run -A ${join(ROOT, "tests/support/mcp_server.ts")}`;
  const here = toolbox(t.path, "McpRoute", `mcp: stdio '${server}' echo\n`);
  for (const route of ["direct", "task"] as const) {
    const a = await loaded(
      t.path,
      here,
      srv.url,
      route === "direct" ? { no_ask_override: true } : {},
    );
    current(a).push({ role: "user", content: `mcp, ${route}` });
    const before = srv.requests.length;
    const r = await chat(a);
    assert.equal(Boolean(r.job), route === "task");
    assert.deepEqual(offered(srv.requests[before]!), ["echo", ...OWN].sort(), route);
    const out = r.messages.find((m) => m.role === "function_call_output");
    assert.equal(JSON.parse(String(out?.content)).content, "over MCP", route);
  }
});
