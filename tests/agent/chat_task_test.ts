import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import type { Job } from "../../src/workflow/job_types.ts";
import { loadJobResult, runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import { ScoutError } from "../../src/errors.ts";
import { parse } from "../../src/chat/parse.ts";
import type { Message } from "../../src/chat/types.ts";
import { chatTask } from "../../src/agent/mod.ts";
import type { ChatTaskBody } from "../../src/agent/chat_task.ts";
import { jobSystemMessage } from "../../src/agent/chat_task_helpers.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { homeIn, ROOT, runScout, tempDir } from "../support/cli.ts";

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isFile) await Deno.copyFile(join(from, e.name), join(to, e.name));
  }
}

const CHAT = "user:\n\nPlan the week\n";

/** Drops the leading empty user message an older parser adds when reading a printed chat back. */
const strip = (chat: Message[]) =>
  chat.filter((m, i) => !(i === 0 && m.role === "user" && m.content === ""));
/** A printed chat read back. */
const readBack = (text: string) => strip(parse(text));
/** Runs a chat job: its messages as the loader reads them back (no leading empty user, R82-8). */
const run = async (job: Job) => await runJob(job) as Message[];

function pipeline(dir: string, body: ChatTaskBody, extra: Record<string, unknown> = {}) {
  return workflow("Pipeline", {
    jobsDir: join(dir, "jobs"),
    tasks: { prep: { type: "string", run: () => "prepared" }, ...chatTask("ask", body), ...extra },
  });
}

Deno.test("chat task: Ruby's job layout and .info (type chat, inputs, input_names)", async () => {
  await using dir = await tempDir();
  const wf = pipeline(dir.path, () => [{ role: "assistant", content: "planned" }]);
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: CHAT } });
  assert.match(job.shortPath, /^Pipeline\/ask\/Default_[0-9a-f]{32}\.chat$/);
  assert.equal(job.path, join(dir.path, "jobs", job.shortPath));
  const answer = [
    { role: "meta", content: `job=${job.shortPath}` },
    { role: "assistant", content: "planned" },
  ];
  assert.deepEqual(await run(job), answer);
  // R82-8: every loader of the done job's result starts with its `meta: job=`, as the README says
  assert.deepEqual(await run(job), answer);
  assert.deepEqual(await loadJobResult(job), answer);
  const info = await jobInfo(job.path);
  assert.equal(info?.status, "done");
  assert.equal(info?.type, "chat");
  assert.deepEqual(info?.inputs, [CHAT]);
  assert.deepEqual(info?.input_names, ["chat"]);
  assert.deepEqual(readBack(readFileSync(job.path, "utf8")), [
    { role: "meta", content: `job=${job.shortPath}` },
    { role: "assistant", content: "planned" },
  ]);
  const input = wf.tasks.ask!.inputs[0]!;
  assert.deepEqual([input.name, input.type, input.default], ["chat", "text", undefined]);
});

Deno.test("chat task: a string body result is one assistant message (§7.12); meta dropped, one message wrapped", async () => {
  await using dir = await tempDir();
  const wf = pipeline(dir.path, ({ chat }) => `echo: ${chat().at(-1)?.content}`);
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: CHAT } });
  assert.deepEqual(await run(job), [
    { role: "meta", content: `job=${job.shortPath}` },
    { role: "assistant", content: "echo: Plan the week" },
  ]);
  const one = pipeline(
    dir.path,
    () => ({ role: "assistant", content: "single" }) as Message,
  );
  const j2 = createJob(one, "ask", { env: homeIn(dir.path), inputs: { chat: "user:\n\nother\n" } });
  assert.deepEqual((await run(j2)).map((m) => m.content), [
    `job=${j2.shortPath}`,
    "single",
  ]);
});

Deno.test("chat task: deliberate failure → done with the JSON exception; other errors → error", async () => {
  await using dir = await tempDir();
  const wf = pipeline(dir.path, () => {
    throw new ScoutError("job_failed", "No plan possible");
  });
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: CHAT } });
  const result = await run(job);
  assert.deepEqual(result, [
    { role: "meta", content: `job=${job.shortPath}` },
    {
      role: "assistant",
      content: JSON.stringify({ exception: "No plan possible", job: job.shortPath }),
    },
  ]);
  assert.equal((await jobInfo(job.path))?.status, "done");

  const crash = pipeline(join(dir.path, "b"), () => {
    throw new Error("disk on fire");
  });
  const cjob = createJob(crash, "ask", { env: homeIn(dir.path), inputs: { chat: CHAT } });
  await assert.rejects(() => runJob(cjob), /disk on fire/);
  const info = await jobInfo(cjob.path);
  assert.equal(info?.status, "error");
  assert.ok(!existsSync(cjob.path));
});

Deno.test("chat task helpers: options and tooling are removed from chat(); toolingIntro", async () => {
  await using dir = await tempDir();
  const seen: unknown[] = [];
  const wf = pipeline(dir.path, ({ chat, options, tooling, toolingIntro }) => {
    const opts = options();
    const tools = tooling();
    seen.push(opts, tools.map((m) => m.role), toolingIntro().map((m) => m.content));
    seen.push(strip(chat()).map((m) => m.role));
    return "ok";
  });
  const text = "model: m1\n\nintroduce: Baking\n\ntool: Baking whisk\n\nkb: kb1\n\n" +
    "option: temperature 0.1\n\nuser:\n\nhi\n";
  await runJob(createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: text } }));
  assert.deepEqual(seen, [
    { model: "m1", temperature: "0.1" },
    ["tool", "kb", "introduce"],
    ["Baking"],
    ["user"],
  ]);
});

Deno.test("step-4 system message prints the effective default limits (§7.13), configured ones when set", () => {
  const job = {
    path: "/j/Pipeline/ask/Default.chat",
    filesDir: "/j/Pipeline/ask/Default.chat.files",
  };
  const env = { SCOUT_HOME: "/nonexistent-scout-home" };
  assert.equal(
    jobSystemMessage(job, {}, { cwd: "/work", env }),
    "Your current working directory is /work.\n" +
      "You are working through an ask job with path /j/Pipeline/ask/Default.chat and files_dir " +
      "/j/Pipeline/ask/Default.chat.files.\n" +
      "Tool call content may be truncated after 0, and forgotten after 40.\n",
  );
  const set = jobSystemMessage(job, { full_tool_calls: "3" }, {
    cwd: "/work",
    env: { ...env, MAX_TOOL_CALLS: "7" },
  });
  assert.match(set, /truncated after 3, and forgotten after 7\.\n$/);
  assert.doesNotMatch(jobSystemMessage(job, {}, { env }), /after ,|after \./);
});

/** A temp home with an agent directory; the loopback provider; agent options pointing at it. */
async function society(dir: string, url: string) {
  const agents = join(dir, "Agent");
  await Deno.mkdir(join(agents, "Worker"), { recursive: true });
  await Deno.writeTextFile(join(agents, "Worker", "start_chat"), "system:\n\nYou are Worker\n");
  await copyDir(join(ROOT, "fixtures", "workflows", "Baking"), join(dir, "workflows", "Baking"));
  const runtime = { cwd: dir, env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" } };
  return {
    worker: join(agents, "Worker"),
    runtime,
    llm: { backend: "openai", url, model: "m", persist: false },
  };
}

Deno.test("agent(): seeds tooling, job system message, dependencies, other jobs, files, the filtered chat; log/agent.chat", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ script: [{ text: "worker answer" }] });
  const s = await society(dir.path, srv.url);
  let seeded: Message[] = [];
  let agentJob: unknown;
  const elsewhere = join(dir.path, "elsewhere.txt");
  await Deno.writeTextFile(elsewhere, "elsewhere");
  const wf = pipeline(dir.path, async ({ agent, chat, job }) => {
    await Deno.mkdir(job.filesDir, { recursive: true });
    await Deno.writeTextFile(join(job.filesDir, "notes.md"), "notes");
    const a = await agent(s.worker, {
      chat: chat(),
      files: ["notes.md", elsewhere],
      runtime: s.runtime,
      ...s.llm,
    });
    seeded = [...a.startChat];
    agentJob = a.job;
    return a;
  });
  const text = "tool: Baking whisk\n\nsystem:\n\nThis workflow job has the following old deps\n\n" +
    "meta: job=Other/task/Default.chat\n\nuser:\n\nPlan the week\n";
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: text } });
  const result = await run(job);
  assert.deepEqual(result.map((m) => m.role), ["meta", "assistant"]);
  assert.equal(result.at(-1)?.content, "worker answer");
  assert.equal((agentJob as { path?: string })?.path, job.path);
  const roles = seeded.map((m) => m.role);
  assert.deepEqual(roles, ["system", "tool", "system", "system", "file", "file", "meta", "user"]);
  assert.equal(seeded[0]!.content, "You are Worker");
  assert.equal(seeded[1]!.content, "Baking whisk");
  assert.match(String(seeded[2]!.content), /^Your current working directory is /);
  assert.match(String(seeded[2]!.content), /truncated after 0, and forgotten after 40\./);
  assert.equal(
    seeded[3]!.content,
    "There are other jobs found in this chat:\n\nOther/task/Default.chat\n",
  );
  assert.equal(seeded[4]!.content, join(job.path + ".files", "notes.md"));
  assert.equal(seeded[5]!.content, elsewhere);
  // the old "This workflow job has the following" system line was filtered out
  assert.ok(!seeded.some((m) => String(m.content).includes("old deps")));
  assert.deepEqual(await listJobFiles(job.path, "log"), ["log/agent.chat"]);
  const log = readBack(readFileSync(join(job.path + ".files", "log", "agent.chat"), "utf8"));
  assert.deepEqual(log.map((m) => m.role), [...roles, "meta", "assistant"]);
  const req = srv.requests[0]!.body.messages as { role: string; content: string }[];
  assert.equal(req.filter((m) => m.role === "system").length >= 3, true);
});

Deno.test("agent(): dependencies message lists recursive dependency paths; an answered agent is not run again", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const s = await society(dir.path, srv.url);
  let deps = "";
  const wf = workflow("Deps", {
    jobsDir: join(dir.path, "jobs"),
    tasks: {
      base: { type: "string", run: () => "b" },
      prep: { type: "string", deps: ["base"], run: () => "p" },
      ...chatTask("ask", async ({ agent }) => {
        const a = await agent(s.worker, { runtime: s.runtime, tooling: false, ...s.llm });
        deps = String(
          a.startChat.find((m) => String(m.content).startsWith("This workflow"))?.content,
        );
        a.currentChat = [...a.startChat, { role: "user", content: "q" }, {
          role: "assistant",
          content: "already answered",
        }];
        return a;
      }),
    },
  });
  wf.tasks.ask!.deps.push({ task: "prep" });
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: CHAT } });
  const result = await run(job);
  const [prep] = job.deps;
  assert.ok(prep);
  assert.equal(
    deps,
    `This workflow job has the following dependencies:\n\n${prep.path}\n${prep.deps[0]!.path}\n\n` +
      "Their input should already be incorporated, but they might have artifacts\n",
  );
  assert.deepEqual(result.map((m) => m.content), [
    `job=${job.shortPath}`,
    "q",
    "already answered",
  ]);
  assert.equal(srv.requests.length, 0);
  assert.deepEqual((await jobInfo(job.path))?.dependencies, [prep.path]);
});

Deno.test("workflow files get api.chatTask from the CLI: scout-ai workflow task runs a chat task", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows", "Echo"), { recursive: true });
  await Deno.writeTextFile(
    join(dir.path, "workflows", "Echo", "workflow.ts"),
    `export default (api) => api.workflow("Echo", {
  tasks: { ...api.chatTask("ask", ({ chat }) => "echo " + chat().at(-1).content) },
});\n`,
  );
  const r = await runScout(["workflow", "task", "Echo", "ask", "--chat", "user:\n\nhello\n"], {
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home") },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /meta: job=Echo\/ask\/Default_[0-9a-f]{32}\.chat/);
  assert.match(r.stdout, /assistant:\n\necho hello\n/);
  // R82-8: the JSON result starts with the job's marker, not the parser's empty user message
  const j = await runScout(
    ["workflow", "task", "Echo", "ask", "--chat", "user:\n\nhello\n", "--json"],
    { cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } },
  );
  assert.equal(j.code, 0, j.stderr);
  const result = JSON.parse(j.stdout).result as Message[];
  assert.deepEqual(result.map((m) => m.role), ["meta", "assistant"]);
  assert.match(String(result[0]!.content), /^job=Echo\/ask\/Default_[0-9a-f]{32}\.chat$/);
});

Deno.test("agent(): a chat that ends with an answer is answered already: no inference, nothing new (§4.2)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ script: [{ text: "fresh answer" }] });
  const s = await society(dir.path, srv.url);
  const wf = pipeline(
    dir.path,
    async ({ agent, chat }) =>
      await agent(s.worker, { chat: chat(), runtime: s.runtime, tooling: false, ...s.llm }),
  );
  const answered = createJob(wf, "ask", {
    env: homeIn(dir.path),
    inputs: { chat: "user:\n\nhi\n\nassistant:\n\nearlier answer\n" },
  });
  assert.deepEqual(await run(answered), []); // currentChat − startChat: nothing
  assert.equal(srv.requests.length, 0);
  // one that ends with a question is asked
  const asked = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: "user:\n\nhi\n" } });
  assert.equal((await run(asked)).at(-1)?.content, "fresh answer");
  assert.equal(srv.requests.length, 1);
});

Deno.test("agent(): extra option values called constructor, valueOf fill the chat's missing ones (R112-5)", async () => {
  await using dir = await tempDir();
  const wf = pipeline(dir.path, async ({ agent }) => {
    const a = await agent(null, { constructor: "x", valueOf: "y", plain: "z", tooling: false });
    return JSON.stringify([a.options.constructor, a.options.valueOf, a.options.plain]);
  });
  const job = createJob(wf, "ask", { env: homeIn(dir.path), inputs: { chat: CHAT } });
  // before: `k in options` found Object.prototype's members: ["constructor", "valueOf"] dropped
  assert.equal((await run(job)).at(-1)?.content, '["x","y","z"]');
});
