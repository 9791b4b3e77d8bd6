import assert from "node:assert/strict";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import { chatTask } from "../../src/agent/chat_task.ts";
import { chat, current } from "../../src/agent/agent.ts";
import { loadAgent } from "../../src/agent/load.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { homeIn, tempDir } from "../support/cli.ts";

/** An agent directory whose workflow defines a chat task `ask` that loads the agent itself. */
const CRITIC_WORKFLOW = `
const here = new URL(".", import.meta.url).pathname;
export default (api) =>
  api.workflow("Critic", {
    tasks: {
      ...api.chatTask("ask", async ({ agent, chat }) =>
        await agent(here, { chat: chat(), runtime: globalThis.__criticRuntime })),
    },
  });
`;

async function agents(dir: string) {
  for (const [name, wf] of [["Critic", CRITIC_WORKFLOW], ["Plain", null]] as const) {
    await Deno.mkdir(join(dir, "Agent", name), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "Agent", name, "start_chat"),
      `system:\n\nYou are ${name}\n`,
    );
    if (wf) await Deno.writeTextFile(join(dir, "Agent", name, "workflow.ts"), wf);
  }
  return { critic: join(dir, "Agent", "Critic"), plain: join(dir, "Agent", "Plain") };
}

Deno.test("agent() sets no_ask_override only when the agent's workflow is the job's (§4.5, §7.18)", async () => {
  await using dir = await tempDir();
  const a = await agents(dir.path);
  const runtime = { cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } };
  const seen: Record<string, unknown> = {};
  const body = (path: string, key: string) =>
    chatTask("ask", async ({ agent }) => {
      const loaded = await agent(path, { runtime, tooling: false });
      seen[key] = loaded.options.no_ask_override;
      return "ok";
    });
  // same workflow name as the loaded agent's ("Critic") → guard set
  const same = workflow("Critic", {
    jobsDir: join(dir.path, "jobs"),
    tasks: body(a.critic, "same"),
  });
  await runJob(createJob(same, "ask", { env: homeIn(dir.path), inputs: { chat: "user:\n\nx\n" } }));
  // another workflow loading the Critic, and one loading an agent without workflow → not set
  const other = workflow("Board", {
    jobsDir: join(dir.path, "jobs"),
    tasks: body(a.critic, "other"),
  });
  await runJob(
    createJob(other, "ask", { env: homeIn(dir.path), inputs: { chat: "user:\n\nx\n" } }),
  );
  const plain = workflow("Critic2", {
    jobsDir: join(dir.path, "jobs"),
    tasks: body(a.plain, "plain"),
  });
  await runJob(
    createJob(plain, "ask", { env: homeIn(dir.path), inputs: { chat: "user:\n\nx\n" } }),
  );
  assert.deepEqual(seen, { same: true, other: undefined, plain: undefined });
});

Deno.test("task route: an ask task loading its own agent runs one inference, one job, logged (§7.18)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ script: [{ text: "risk: the oven" }] });
  const a = await agents(dir.path);
  const runtime = { cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } };
  (globalThis as Record<string, unknown>).__criticRuntime = runtime;
  try {
    const options = { backend: "openai", url: srv.url, model: "m", persist: false };
    const critic = await loadAgent(a.critic, { runtime, options });
    current(critic).push({ role: "user", content: "Review the plan" });
    const reply = await chat(critic);
    assert.equal(reply.text, "risk: the oven");
    assert.equal(srv.requests.length, 1);
    const job = reply.job!;
    assert.match(job.shortPath, /^Critic\/ask\/Default_[0-9a-f]{32}\.chat$/);
    // (an empty user message is an artefact of an older parser reading the result back)
    const roles = reply.messages.filter((m) => m.content !== "").map((m) => m.role);
    assert.deepEqual(roles, ["meta", "assistant"]);
    assert.equal(reply.messages[0]!.content, `job=${job.shortPath}`);
    assert.deepEqual(await listJobFiles(job.path, "log"), ["log/agent.chat"]);
    // the same chat again is the same job: its cached answer, no new inference
    const twin = await loadAgent(a.critic, { runtime, options });
    current(twin).push({ role: "user", content: "Review the plan" });
    const cached = await chat(twin);
    assert.equal(cached.job?.path, job.path);
    assert.equal(cached.text, "risk: the oven");
    assert.equal(srv.requests.length, 1);
  } finally {
    delete (globalThis as Record<string, unknown>).__criticRuntime;
  }
});
