import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import { parse } from "../../src/chat/parse.ts";
import type { Message } from "../../src/chat/types.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { homeIn, tempDir } from "../support/cli.ts";
import { bossWorkflow } from "./delegation_support.ts";

const read = (path: string): Message[] =>
  parse(readFileSync(path, "utf8")).filter((m, i) =>
    !(i === 0 && m.role === "user" && m.content === "")
  );

/** Writes each agent's start chat under `dir/Agent/`; the runtime of a job there. */
async function agentDirs(dir: string, start: Record<string, string>) {
  for (const [name, text] of Object.entries(start)) {
    await Deno.mkdir(join(dir, "Agent", name), { recursive: true });
    await Deno.writeTextFile(join(dir, "Agent", name, "start_chat"), text);
  }
  return { cwd: dir, env: { SCOUT_HOME: join(dir, "home") } };
}

Deno.test("chat task with a society: log/agent.chat, log/society/<Agent>/<conversation>.chat, nested societies (§4.4, §7.7)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    script: [
      {
        toolCalls: [{
          name: "ask",
          id: "c1",
          arguments: { agent: "Worker", prompt: "first", conversation: "c1" },
        }],
      },
      { toolCalls: [{ name: "ask", id: "h1", arguments: { agent: "Helper", prompt: "sub" } }] },
      { text: "helper answer" },
      { text: "worker answer" },
      { text: "boss answer" },
    ],
  });
  const start: Record<string, string> = {
    Boss: "system:\n\nYou are Boss\n\nsocialize: true\n",
    Worker: "system:\n\nYou are Worker\n\nsocialize: true\n",
    Helper: "system:\n\nYou are Helper\n",
  };
  const runtime = await agentDirs(dir.path, start);
  const wf = bossWorkflow("Pipeline", dir.path, srv.url, runtime);
  const job = createJob(wf, "ask", {
    env: homeIn(dir.path),
    inputs: { chat: "user:\n\nPlan things\n" },
  });
  const result = (await runJob(job)) as Message[];
  assert.equal(result.at(-1)?.content, "boss answer");
  assert.equal(srv.requests.length, 5);
  const logs = await listJobFiles(job.path, "log");
  assert.equal(logs.length, 3, logs.join(", "));
  assert.deepEqual(logs.slice(0, 2), ["log/agent.chat", "log/society/Worker/c1.chat"]);
  assert.match(logs[2]!, /^log\/society\/Worker\/c1\/society\/Helper\/[A-Za-z0-9_.-]+\.chat$/);
  const files = job.path + ".files";
  // the boss log: start chat, the step-4 system message, the chat, the tool call and its output
  const boss = read(join(files, "log", "agent.chat"));
  assert.equal(boss[0]!.content, "You are Boss");
  assert.ok(
    boss.some((m) => m.role === "system" && /working through an ask job/.test(String(m.content))),
  );
  assert.ok(boss.some((m) => m.role === "function_call_output"));
  assert.equal(boss.at(-1)?.content, "boss answer");
  const worker = read(join(files, "log", "society", "Worker", "c1.chat"));
  assert.equal(worker[0]!.content, "You are Worker");
  assert.ok(worker.some((m) => m.role === "user" && m.content === "first"));
  assert.equal(worker.at(-1)?.content, "worker answer");
  const helper = read(join(files, logs[2]!));
  assert.ok(helper.some((m) => m.role === "user" && m.content === "sub"));
  assert.equal(helper.at(-1)?.content, "helper answer");
});

Deno.test("§3.4 inherit conversation from a chat task: the specialist gets the user's conversation, not the job's setup", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    script: [
      {
        toolCalls: [{
          name: "ask",
          id: "c1",
          arguments: { agent: "Leaf", prompt: "first", inherit: "conversation" },
        }],
      },
      { text: "leaf answer" },
      { text: "boss answer" },
    ],
  });
  const start: Record<string, string> = {
    Boss: "system:\n\nYou are Boss\n\nsocialize: true\n",
    Leaf: "system:\n\nYou are Leaf\n",
  };
  const runtime = await agentDirs(dir.path, start);
  const wf = bossWorkflow("Inherits", dir.path, srv.url, runtime);
  const chat = "user:\n\nearlier\n\nassistant:\n\nnoted\n\nuser:\n\nplan it\n";
  await runJob(createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat } }));
  const leaf = srv.requests[1]!.body.messages as { role: string; content: string }[];
  // as on the direct route: the Leaf's start chat, the conversation, the prompt — no Boss setup
  assert.deepEqual(leaf.map((m) => `${m.role} ${m.content}`), [
    "system You are Leaf",
    "user earlier",
    "assistant noted",
    "user plan it",
    "user first",
  ]);
});
