/**
 * A custom tool that returns an agent (`{agent}` or `specialistCall(…)`)
 * gets the society log `ask` and hand-offs get (agents.md §3.2 "Any tool
 * returning an agent gets the same treatment", §4.4; R82-9): its specialist
 * joins the caller's `chats` as `<Agent>/_tool-<n>` (or the conversation the
 * call names) and a chat task logs it under `log/society/`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chat, createAgent, current } from "../../src/agent/agent.ts";
import { agentLogFiles } from "../../src/agent/log.ts";
import { chatTask } from "../../src/agent/mod.ts";
import { specialistCall } from "../../src/agent/specialists.ts";
import type { Agent } from "../../src/agent/types.ts";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { outputs, shape, society, sys } from "./delegation_support.ts";

const def = (name: string) => ({
  name,
  description: name,
  parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
});

/** Tools returning a live agent, a pending call, and a pending call naming its conversation. */
function consultTools(expert: Agent, make: (name: string) => Agent) {
  return {
    consult: [(_n: string, args: { q: string }) => {
      current(expert).push({ role: "user", content: args.q });
      return { agent: expert };
    }, def("consult")],
    consult2: [
      (_n: string, args: { q: string }) => ({ agent: specialistCall(make("Expert2"), args.q) }),
      def("consult2"),
    ],
    consult3: [
      (_n: string, args: { q: string }) => ({
        agent: specialistCall(make("Expert3"), args.q, { conversation: "c1" }),
      }),
      def("consult3"),
    ],
  };
}

Deno.test("R82-9: specialists a custom tool returns join the caller's society: one key per agent it keeps", async () => {
  await using s = await society();
  const expert = s.make("Expert");
  const boss = s.make("boss");
  boss.options.tools = consultTools(expert, s.make);
  current(boss).push({ role: "user", content: "go" });
  s.plan(["consult", { q: "raw" }], ["consult2", { q: "call" }], ["consult3", { q: "named" }]);
  const first = outputs((await chat(boss)).messages);
  assert.deepEqual(first.map((o) => (o.agent_meta as unknown[]).length), [1, 1, 1]);
  current(boss).push({ role: "user", content: "again" });
  s.plan(["consult", { q: "raw again" }], ["consult2", { q: "call again" }]);
  const second = outputs((await chat(boss)).messages);
  assert.equal(boss.chats["Expert/_tool-1"], expert);
  // each output names the log of the conversation it ran (R87-5)
  assert.deepEqual([...first, ...second].map((o) => [o.agent, o.conversation]), [
    ["Expert", "_tool-1"],
    ["Expert2", "_tool-1"],
    ["Expert3", "c1"],
    ["Expert", "_tool-1"],
    ["Expert2", "_tool-2"],
  ]);
  const files = new Map(agentLogFiles(boss));
  assert.deepEqual([...files.keys()], [
    "log/society/Expert/_tool-1.chat",
    "log/society/Expert2/_tool-1.chat",
    "log/society/Expert3/c1.chat",
    "log/society/Expert2/_tool-2.chat",
    "log/agent.chat",
  ]);
  // the agent the tool keeps is logged once, with both calls
  assert.deepEqual(shape(files.get("log/society/Expert/_tool-1.chat")!), [
    `system ${sys("Expert")}`,
    "user raw",
    "meta",
    "assistant Expert heard: raw",
    "user raw again",
    "meta",
    "assistant Expert heard: raw again",
  ]);
  assert.deepEqual(shape(files.get("log/society/Expert3/c1.chat")!).slice(1, 2), ["user named"]);
});

Deno.test("R82-9: a chat task whose agent's tool returns an agent logs it under log/society/; prov counts it once", async () => {
  await using t = await tempDir();
  // the two specialists run in parallel: each is answered by its system message
  await using srv = await startProviderServer({
    fallback: (r) => {
      const msgs = r.body.messages as { role: string; content: string }[];
      if (msgs[0]!.content === "Expert") {
        return { text: "raw agent answer", usage: { pt: 5, ct: 1 } };
      }
      if (msgs[0]!.content === "Expert2") {
        return { text: "call agent answer", usage: { pt: 7, ct: 1 } };
      }
      if (msgs.at(-1)!.role === "tool") return { text: "final", usage: { pt: 11, ct: 1 } };
      return {
        toolCalls: [
          { name: "consult", id: "k1", arguments: { q: "raw" } },
          { name: "consult2", id: "k2", arguments: { q: "call" } },
        ],
        usage: { pt: 3, ct: 1 },
      };
    },
  });
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "k" };
  const base = { backend: "openai", url: srv.url, model: "m", persist: false };
  const runtime = { env, cwd: t.path };
  const make = (name: string) =>
    createAgent({
      name,
      options: { ...base },
      runtime,
      startChat: [{ role: "system", content: name }],
    });
  const expert = make("Expert");
  const wf = workflow("CustomTools", {
    jobsDir: join(t.path, "jobs"),
    tasks: chatTask("go", async ({ agent, chat }) =>
      await agent(null, {
        chat: chat(),
        runtime,
        options: { ...base, tools: consultTools(expert, make) },
      })),
  });
  const job = createJob(wf, "go", { inputs: { chat: "user:\n\nhi\n" }, env });
  await runJob(job);
  const log = join(job.path + ".files", "log");
  assert.match(
    readFileSync(join(log, "society", "Expert", "_tool-1.chat"), "utf8"),
    /user:\n\nraw\n[\s\S]*pt=5 ct=1 tt=6[\s\S]*raw agent answer/,
  );
  assert.match(
    readFileSync(join(log, "society", "Expert2", "_tool-1.chat"), "utf8"),
    /user:\n\ncall\n[\s\S]*pt=7 ct=1 tt=8[\s\S]*call agent answer/,
  );
  const prov = await runMain(["llm", "prov", "--json", job.path], { env });
  assert.equal(prov.code, 0, prov.stderr);
  const nodes = JSON.parse(prov.stdout).nodes as {
    id: string;
    tokens: { direct: { tt: number }; subtree: { tt: number } };
  }[];
  assert.equal(nodes[0]!.tokens.subtree.tt, 4 + 6 + 8 + 12);
  const society = nodes.filter((n) => n.id.includes("/log/society/"));
  assert.deepEqual(society.map((n) => n.tokens.direct.tt).sort(), [6, 8]);
  // each call links to its specialist's log, as an ask does (R87-5)
  const tools = await runMain(["llm", "prov", "--tools", "--json", job.path], { env });
  assert.equal(tools.code, 0, tools.stderr);
  const calls = (JSON.parse(tools.stdout).calls as {
    callId: string;
    chat: string;
    delegation: { target: string; association: string; logs: string[] } | null;
  }[]).filter((c) => c.chat.endsWith("agent.chat"));
  assert.deepEqual(
    calls.map((
      c,
    ) => [c.callId, c.delegation?.target, c.delegation?.association, c.delegation?.logs]),
    [
      ["k1", "Expert", "inferred", [join(log, "society", "Expert", "_tool-1.chat")]],
      ["k2", "Expert2", "inferred", [join(log, "society", "Expert2", "_tool-1.chat")]],
    ],
  );
  const text = await runMain(["llm", "prov", "--tools", job.path], { env });
  assert.match(
    text.stdout,
    /Delegations[^\n]*\n {2}CustomTools → Expert {2}.*society\/Expert\/_tool-1\.chat\n/,
  );
});
