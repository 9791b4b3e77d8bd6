/**
 * Tokens paid for before a failure stay in the evidence: a chat task whose
 * agent fails mid-conversation still writes its logs (provenance.md §1.1:
 * error steps keep partial logs), and a specialist call that fails keeps the
 * receipts of the inferences it made (its error output's `agent_meta`), or the
 * `job=` reference of its failed `ask` job on the task route.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import { agentChat, clearAgentCache, loadAgent } from "../../src/agent/mod.ts";
import { current } from "../../src/agent/agent.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ScriptStep, startProviderServer } from "../support/provider_server.ts";
import { bossWorkflow } from "./delegation_support.ts";
import { put } from "../support/files.ts";

const ask = (agent: string, prompt: string): ScriptStep => ({
  toolCalls: [{ name: "ask", id: "c1", arguments: { agent, prompt } }],
  usage: { pt: 100, ct: 10 },
});

function outputOf(messages: Message[]): Record<string, unknown> {
  const o = messages.find((m) => m.role === "function_call_output");
  assert.ok(o, "a function_call_output");
  return JSON.parse(String(o.content));
}

/**
 * Boss asks Worker, Worker asks Helper (agent directories in `dir`): the
 * Worker's first turn and the Helper's answer are billed 33 and 55 tokens;
 * what the Boss and the Worker answer after their tool output is given.
 */
function chain(dir: string, bossAfter: ScriptStep, workerAfter: ScriptStep) {
  for (const name of ["Boss", "Worker"]) {
    put(dir, `Agent/${name}/start_chat`, `system:\n\nYou are ${name}\n\nsocialize: true\n`);
  }
  put(dir, "Agent/Helper/start_chat", "system:\n\nYou are Helper\n");
  return startProviderServer({
    fallback: (r) => {
      const sys = String((r.body.messages as { content: string }[])[0]!.content);
      const last = (r.body.messages as { role: string }[]).at(-1)!;
      if (sys === "You are Boss") return last.role === "tool" ? bossAfter : ask("Worker", "w");
      if (sys === "You are Worker") {
        return last.role === "tool"
          ? workerAfter
          : { ...ask("Helper", "h"), usage: { pt: 30, ct: 3 } };
      }
      return { text: "helper answer", usage: { pt: 50, ct: 5 } };
    },
  });
}

/** Loads the Boss agent of `dir` against the server and has it answer "go". */
async function bossAsks(dir: string, url: string) {
  clearAgentCache();
  const env = { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "k" };
  const boss = await loadAgent("Boss", {
    options: { backend: "openai", url, model: "m", persist: false },
    runtime: { env, cwd: dir },
  });
  current(boss).push({ role: "user", content: "go" });
  return { env, boss, r: await agentChat(boss) };
}

Deno.test("a chat task whose agent fails mid-conversation keeps its logs; prov counts what was paid", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    script: [
      ask("Worker", "work"),
      { text: "worker answer", usage: { pt: 200, ct: 20 } },
      { status: 400, message: "bad request" },
    ],
  });
  put(t.path, "Agent/Boss/start_chat", "system:\n\nYou are Boss\n\nsocialize: true\n");
  put(t.path, "Agent/Worker/start_chat", "system:\n\nYou are Worker\n");
  clearAgentCache();
  const runtime = { cwd: t.path, env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "k" } };
  const wf = bossWorkflow("FailingBoss", t.path, srv.url, runtime);
  // the job's env too: its persist lock goes to `$SCOUT_HOME/tmp/persist_locks`, and the
  // process's would be the user's `~/.scout` (R77-6)
  const job = createJob(wf, "ask", { inputs: { chat: "user:\n\nPlan\n" }, env: runtime.env });
  await assert.rejects(runJob(job), /bad request/);
  assert.equal((await jobInfo(job.path))?.status, "error");
  const boss = parse(readFileSync(join(job.path + ".files", "log", "agent.chat"), "utf8"));
  const out = outputOf(boss);
  assert.equal(out.content, "worker answer");
  assert.match(JSON.stringify(out.agent_meta), /pt=200/);
  assert.ok(boss.some((m) => m.role === "meta" && /pt=100/.test(String(m.content))));
  const worker = join(job.path + ".files", "log", "society", "Worker", "_oneshot-1.chat");
  assert.match(readFileSync(worker, "utf8"), /worker answer/);
  const prov = await runMain(["llm", "prov", "--json", job.path], { env: runtime.env });
  assert.equal(prov.code, 0, prov.stderr);
  const root = JSON.parse(prov.stdout).nodes[0];
  assert.equal(root.tokens.subtree.tt, 330); // (100 + 10) + (200 + 20), each once
});

Deno.test("a specialist that fails after an inference: the error output keeps its receipts", async () => {
  await using t = await tempDir();
  await using srv = await chain(t.path, { text: "boss done" }, {
    status: 400,
    message: "worker broke",
  });
  const { r, boss } = await bossAsks(t.path, srv.url);
  assert.equal(r.text, "boss done");
  const out = outputOf(r.messages);
  assert.match(String(out.content), /worker broke/);
  // the Worker's one inference (pt=30), then its Helper's (pt=50) carried up from its output
  const receipts = out.agent_meta as Message[];
  assert.equal(receipts.length, 2, JSON.stringify(out));
  assert.match(String(receipts[0]!.content), /pt=30 ct=3/);
  assert.match(String(receipts[1]!.content), /pt=50 ct=5/);
  // the failed Worker's conversation (its log) keeps what it did: its meta, its call to the
  // Helper and that call's output, so the Helper's log has a caller; then the failure (R106-2)
  const worker = boss.chats["Worker/_oneshot-1"]!.currentChat!;
  assert.deepEqual(worker.map((m) => m.role), [
    "system",
    "socialize",
    "user",
    "meta",
    "function_call",
    "function_call_output",
    "meta",
  ]);
  assert.match(
    String(worker.at(-1)!.content),
    /^incomplete=true reason=error error=.*worker broke/,
  );
  assert.ok(boss.chats["Worker/_oneshot-1"]!.chats["Helper/_oneshot-1"]);
});

Deno.test("a specialist on the task route whose ask job fails: the error output names the job", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (r) => {
      const last = (r.body.messages as { role: string }[]).at(-1)!;
      return last.role === "tool" ? { text: "boss done" } : ask("Broken", "b");
    },
  });
  put(t.path, "Agent/Boss/start_chat", "system:\n\nYou are Boss\n\nsocialize: true\n");
  put(t.path, "Agent/Broken/start_chat", "system:\n\nYou are Broken\n");
  put(
    t.path,
    "Agent/Broken/workflow.ts",
    `export default (api) => api.workflow("BrokenAsk", {
  tasks: { ...api.chatTask("ask", () => { throw new Error("no answers here"); }) },
});\n`,
  );
  const { env, boss, r } = await bossAsks(t.path, srv.url);
  const out = outputOf(r.messages);
  assert.match(String(out.content), /no answers here/);
  const receipts = out.agent_meta as Message[];
  assert.equal(receipts.length, 1, JSON.stringify(out));
  const ref = String(receipts[0]!.content);
  assert.match(ref, /^job=BrokenAsk\/ask\/Default_[0-9a-f]+\.chat$/);
  const path = join(env.SCOUT_HOME, "var", "jobs", ref.slice(4));
  assert.equal((await jobInfo(path))?.status, "error");
  assert.ok(!existsSync(path), "no result file");
  // provenance reaches the failed job through the receipt
  writeFileSync(join(t.path, "boss.chat"), print(current(boss)));
  const prov = await runMain(["llm", "prov", "--json", "boss.chat"], { env, cwd: t.path });
  assert.equal(prov.code, 0, prov.stderr);
  const nodes = JSON.parse(prov.stdout).nodes as { kind: string; job: { status: string } | null }[];
  assert.deepEqual(nodes.filter((n) => n.kind === "job").map((n) => n.job?.status), ["error"]);
});

Deno.test("a nested specialist's inferences reach the saved chat's receipts: prov counts every token billed", async () => {
  await using t = await tempDir();
  await using srv = await chain(t.path, { text: "boss done", usage: { pt: 1, ct: 1 } }, {
    text: "worker done",
    usage: { pt: 40, ct: 4 },
  });
  const { env, boss } = await bossAsks(t.path, srv.url);
  // the direct route writes no logs: the saved chat is all the evidence (as `agent ask -o`)
  const saved = join(t.path, "saved.chat");
  writeFileSync(saved, print(boss.currentChat!));
  const prov = await runMain(["llm", "prov", "--json", saved], { env });
  assert.equal(prov.code, 0, prov.stderr);
  // Boss 110 + 2, Worker 33 + 44, Helper 55: each inference once
  assert.equal(JSON.parse(prov.stdout).nodes[0].tokens.subtree.tt, 244);
});

Deno.test("a specialist's provider error reaches the caller's model without its url, endpoint or snapshot path (R84-3)", async () => {
  await using t = await tempDir();
  await using srv = await chain(t.path, { text: "boss done" }, {
    status: 500,
    message: "worker boom",
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/lb.yaml", `backend: openai\nmodel: m\nurl: ${srv.url}\nmax_retries: 0\n`);
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "k" };
  const boss = await loadAgent("Boss", {
    options: { endpoint: "lb", persist: false },
    runtime: { env, cwd: t.path },
  });
  current(boss).push({ role: "user", content: "go" });
  const r = await agentChat(boss);
  assert.equal(r.text, "boss done");
  // the Boss's request after its tool output: what the caller's provider was sent
  const last = srv.requests.at(-1)!;
  const tool = (last.body.messages as { role: string; content: string }[])
    .find((m) => m.role === "tool")!;
  assert.match(tool.content, /worker boom/);
  assert.doesNotMatch(tool.content, /snapshot|endpoint|url |127\.0\.0\.1/, tool.content);
  assert.ok(!tool.content.includes(home), tool.content);
  // the snapshot was written all the same (users see it where errors are reported)
  assert.ok(existsSync(join(home, "tmp", "ask")), "a failure snapshot");
});
