import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { listJobFiles } from "../../src/workflow/files.ts";
import { parse } from "../../src/chat/parse.ts";
import { agentLogFiles, logAgent, type LoggableAgent } from "../../src/agent/log.ts";
import { homeIn, tempDir } from "../support/cli.ts";

/** Parsed log (an older parser reads a leading empty user message: not part of the log). */
const readBack = (text: string) =>
  parse(text).filter((m, i) => !(i === 0 && m.role === "user" && m.content === ""));

const msg = (role: string, content: string) => ({ role, content });

function society(): LoggableAgent {
  const nested: LoggableAgent = { currentChat: [msg("user", "deep"), msg("assistant", "ok")] };
  const worker: LoggableAgent = {
    currentChat: [msg("system", "worker"), msg("user", "first"), msg("assistant", "done")],
    chats: new Map([["Helper/default", nested]]),
  };
  return {
    startChat: [msg("system", "boss")],
    currentChat: [
      msg("system", "boss"),
      msg("user", "Plan"),
      // a task: line in a log must stay a line, never be re-run by a compiler (§7.10)
      msg("task", "Baking whisk eggs=3"),
      msg("assistant", "planned"),
    ],
    chats: { "Worker/c1": worker, "Critic/_oneshot-1": { currentChat: [msg("user", "x")] } },
  };
}

Deno.test("agentLogFiles: Ruby's layout, nested societies under society/<Agent>/<conversation>/ (§4.4, §7.7)", () => {
  assert.deepEqual(agentLogFiles(society()).map(([p]) => p), [
    "log/society/Worker/c1.chat",
    "log/society/Worker/c1/society/Helper/default.chat",
    "log/society/Critic/_oneshot-1.chat",
    "log/agent.chat",
  ]);
  assert.deepEqual(
    agentLogFiles(society(), "critic-round-1").map(([p]) => p).at(-1),
    [
      "log/critic-round-1/agent.chat",
    ][0],
  );
  assert.throws(
    () => agentLogFiles({ currentChat: [], chats: { "../x": { currentChat: [] } } }),
    /Society key "..\/x"/,
  );
});

Deno.test("logAgent writes raw printed chats and replaces dependencies by absolute paths", async () => {
  await using dir = await tempDir();
  const agent = society();
  const wf = workflow("LogTest", {
    jobsDir: join(dir.path, "jobs"),
    tasks: {
      prep: { type: "string", run: () => "prepared" },
      work: {
        type: "string",
        deps: ["prep"],
        run: async (_i, job) => {
          await logAgent(job, agent);
          await logAgent(job, agent, "round-2");
          for (const bad of ["../x", "..", "a/../../x", "/abs", "."]) {
            await assert.rejects(() => logAgent(job, agent, bad), /must stay inside log\//, bad);
          }
          return "ok";
        },
      },
    },
  });
  const job = createJob(wf, "work", { env: homeIn(dir.path) });
  await runJob(job);
  assert.deepEqual(await listJobFiles(job.path), await listJobFiles(job.path, "log"));
  const files = await listJobFiles(job.path, "log");
  assert.deepEqual(files, [
    "log/agent.chat",
    "log/round-2/agent.chat",
    "log/round-2/society/Critic/_oneshot-1.chat",
    "log/round-2/society/Worker/c1.chat",
    "log/round-2/society/Worker/c1/society/Helper/default.chat",
    "log/society/Critic/_oneshot-1.chat",
    "log/society/Worker/c1.chat",
    "log/society/Worker/c1/society/Helper/default.chat",
  ]);
  const log = readFileSync(join(job.path + ".files", "log", "agent.chat"), "utf8");
  // printed raw: parse gives back exactly the messages, the task: line unrun
  // (an older parser reads a leading empty user message: not part of the log)
  assert.deepEqual(readBack(log), agent.currentChat);
  const worker = readFileSync(join(job.path + ".files", "log/society/Worker/c1.chat"), "utf8");
  assert.deepEqual(readBack(worker).map((m) => m.content), ["worker", "first", "done"]);
  const info = await jobInfo(job.path);
  const prep = job.deps[0]!;
  assert.ok(prep.path.startsWith("/"));
  assert.deepEqual(info?.dependencies, [prep.path]);
  assert.ok(!existsSync(join(job.path + ".files", "log", ".agent.chat.tmp")));
});

Deno.test("logAgent keeps what comes before a clear: the log is the whole chat, printed raw (§7.10, R104-10)", async () => {
  await using dir = await tempDir();
  const agent: LoggableAgent = {
    currentChat: [
      msg("system", "boss"),
      msg("user", "old question"),
      msg("assistant", "old answer"),
      msg("clear", ""),
      msg("user", "new question"),
      msg("assistant", "new answer"),
    ],
    chats: {
      "Worker/c1": {
        currentChat: [msg("user", "before"), msg("clear", "x"), msg("user", "after")],
      },
    },
  };
  const wf = workflow("LogClearTest", {
    jobsDir: join(dir.path, "jobs"),
    tasks: {
      work: { type: "string", run: async (_i, job) => (await logAgent(job, agent), "ok") },
    },
  });
  const job = createJob(wf, "work", { env: homeIn(dir.path) });
  await runJob(job);
  const read = (rel: string) => readBack(readFileSync(join(job.path + ".files", rel), "utf8"));
  assert.deepEqual(read("log/agent.chat"), agent.currentChat);
  assert.deepEqual(
    read("log/society/Worker/c1.chat"),
    [msg("user", "before"), msg("clear", "x"), msg("user", "after")],
  );
});
