/**
 * The budget of `ask` calls of one top-level ask (`SCOUT_MAX_AGENT_CALLS`,
 * R95-3): the depth limit bounds how deep specialists nest, not how many
 * calls each level makes. Without the variable, 200 calls.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chat, current } from "../../src/agent/agent.ts";
import { MAX_AGENT_CALLS } from "../../src/agent/depth.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/mod.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { homeIn, tempDir } from "../support/cli.ts";
import { socialize } from "../../src/agent/socialize.ts";
import { addTemplate, bossWorkflow, outputs, society } from "./delegation_support.ts";
import { startProviderServer } from "../support/provider_server.ts";

type Wire = { role: string; content: string };

/** A model that answers every new question with three parallel asks of `Me`. */
async function fanOut() {
  return await startProviderServer({
    fallback: (r) => {
      const last = (r.body.messages as Wire[]).at(-1)!;
      if (last.role === "tool") return { text: "done" };
      return {
        toolCalls: [1, 2, 3].map((i) => ({
          name: "ask",
          id: `c${i}`,
          arguments: { agent: "Me", prompt: "start" },
        })),
      };
    },
  });
}

function toolOutputs(requests: { body: Record<string, unknown> }[]): string[] {
  return requests.flatMap((q) => (q.body.messages as Wire[]).filter((m) => m.role === "tool"))
    .map((m) => m.content);
}

Deno.test("one top-level ask makes at most SCOUT_MAX_AGENT_CALLS asks in all: the rest are error outputs, one warning", async () => {
  await using t = await tempDir();
  await using srv = await fanOut();
  mkdirSync(join(t.path, "Agent/Me"), { recursive: true });
  writeFileSync(join(t.path, "Agent/Me/start_chat"), "system:\n\nYou are Me\n\nsocialize: true\n");
  clearAgentCache();
  const warnings: string[] = [];
  const env = {
    SCOUT_HOME: join(t.path, "home"),
    OPENAI_API_KEY: "k",
    SCOUT_MAX_AGENT_DEPTH: "3",
    SCOUT_MAX_AGENT_CALLS: "5",
  };
  const root = await loadAgent("Me", {
    options: { backend: "openai", url: srv.url, model: "m", persist: false },
    runtime: { env, cwd: t.path, warn: (m) => warnings.push(m) },
  });
  for (const round of [1, 2]) {
    const before = srv.requests.length;
    current(root).push({ role: "user", content: "start" });
    const r = await chat(root);
    assert.equal(r.text, "done");
    // root + 5 specialists, two requests each (without the budget: 1+3+9+27 agents, 80 requests)
    assert.equal(srv.requests.length - before, 12, `round ${round}`);
  }
  const refused = toolOutputs(srv.requests).filter((c) => c.includes("SCOUT_MAX_AGENT_CALLS"));
  assert.ok(refused.length > 0);
  assert.match(refused[0]!, /Cannot ask Me: the budget of 5 specialist calls of this run is spent/);
  // each top-level ask has its own budget, and warns once
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(warnings[0]!, /made 5 calls \(SCOUT_MAX_AGENT_CALLS\)/);
});

Deno.test("a chat task's agent and its specialists share one budget (the job's ask is the top-level one)", async () => {
  await using t = await tempDir();
  await using srv = await fanOut();
  for (const name of ["Boss", "Me"]) {
    mkdirSync(join(t.path, "Agent", name), { recursive: true });
    writeFileSync(
      join(t.path, "Agent", name, "start_chat"),
      `system:\n\n${name}\n\nsocialize: true\n`,
    );
  }
  const env = {
    SCOUT_HOME: join(t.path, "home"),
    SCOUT_MAX_AGENT_DEPTH: "3",
    SCOUT_MAX_AGENT_CALLS: "4",
  };
  clearAgentCache();
  const wf = bossWorkflow("Budget", t.path, srv.url, { cwd: t.path, env });
  const job = createJob(wf, "ask", { env: homeIn(t.path), inputs: { chat: "user:\n\nstart\n" } });
  await runJob(job);
  // Boss + 4 specialists, two requests each
  assert.equal(srv.requests.length, 10);
});

Deno.test("without SCOUT_MAX_AGENT_CALLS the budget is 200 calls: the 201st ask of one top-level ask is refused (R104-12)", async () => {
  await using s = await society();
  // the agents' env (read instead of the process's) has no SCOUT_MAX_AGENT_CALLS
  assert.ok(!("SCOUT_MAX_AGENT_CALLS" in s.env));
  const boss = s.make("boss");
  const warnings: string[] = [];
  boss.runtime = { ...boss.runtime, warn: (m) => warnings.push(m) };
  addTemplate(boss, s.make("Worker"));
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  const prompts = Array.from({ length: 201 }, (_, i) => `p${i + 1}`);
  const ask = (p: string): [string, Record<string, unknown>] => [
    "ask",
    { agent: "Worker", prompt: p, inherit: "none" },
  ];
  s.plan(...prompts.map(ask)); // one model turn of 201 asks
  const outs = outputs((await chat(boss)).messages);
  assert.equal(outs.length, 201);
  assert.deepEqual(
    outs.slice(0, 200).map((o) => o.content),
    prompts.slice(0, 200).map((p) => `Worker heard: ${p}`),
  );
  assert.equal(outs[200]!.error, "error");
  assert.match(
    String(outs[200]!.content),
    /the budget of 200 specialist calls of this run is spent/,
  );
  assert.equal(s.requestsOf("Worker").length, 200);
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.equal(MAX_AGENT_CALLS, 200);
});
