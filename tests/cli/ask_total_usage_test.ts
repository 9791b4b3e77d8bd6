/**
 * `--json` `total_usage` against what the provider billed and what `llm prov`
 * counts: a specialist on its task route (a `job=` receipt) is followed into
 * its job, a task-route run continued with `-c` counts only itself, and a
 * `--no-cache` rerun of the same `ask` job leaves the earlier run's job alone.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { socialTaskWorkflowText } from "../agent/delegation_support.ts";
import { runTotalUsage } from "../../src/cli/run_usage.ts";
import type { Message } from "../../src/chat/types.ts";
import { openDir, runUnprivileged, tmp } from "../provenance/support.ts";
import { put } from "../support/files.ts";

/** Boss asks Worker once a run; every inference is billed 15 tokens. */
function server(args: Record<string, unknown> = {}) {
  return startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const usage = { pt: 10, ct: 5 };
      if (msgs[0]!.content === "You are Worker") return { text: "worker answer", usage };
      if (msgs.at(-1)!.role === "tool") return { text: "boss done", usage };
      return {
        toolCalls: [{
          name: "ask",
          id: `c${msgs.length}`,
          arguments: { agent: "Worker", prompt: "p", ...args },
        }],
        usage,
      };
    },
  });
}

function agents(
  dir: string,
  srv: ProviderServer,
  taskRoute: "Boss" | "Worker",
  { cache = false } = {},
) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  for (const name of ["Boss", "Worker"]) {
    const social = name === "Boss" ? "\n\nsocialize: true" : "";
    put(dir, `Agent/${name}/start_chat`, `system: You are ${name}\n\nendpoint: ep${social}\n`);
  }
  const here = join(dir, "Agent", taskRoute);
  put(here, "workflow.ts", socialTaskWorkflowText(`Usage${taskRoute}`, here));
  clearAgentCache();
  const o = { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: dir };
  return {
    ask: async (...args: string[]) => {
      const flags = cache ? ["--json"] : ["--no-cache", "--json"];
      const r = await runMain(["agent", "ask", "Boss", ...flags, ...args], o);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { usage: { tt: number }; total_usage: { tt: number } };
    },
    prov: async (file: string) => {
      const r = await runMain(["llm", "prov", "--json", file], o);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).nodes[0].tokens.subtree.tt as number;
    },
  };
}

Deno.test("total_usage follows a job= receipt into the specialist's task-route job", async () => {
  await using t = await tempDir();
  await using srv = await server();
  const a = agents(t.path, srv, "Worker");
  const out = await a.ask("-o", "s.chat", "go");
  assert.equal(out.usage.tt, 30); // the Boss's two inferences
  assert.equal(out.total_usage.tt, 45); // and the Worker's, in its ask job
  assert.equal(await a.prov(join(t.path, "s.chat")), 45);
});

/** Three runs continuing one chat (`-c s.chat -o s.chat`): each run's total_usage. */
async function continuedTotals(taskRoute: "Boss" | "Worker", args: Record<string, unknown> = {}) {
  await using t = await tempDir();
  await using srv = await server(args);
  const a = agents(t.path, srv, taskRoute);
  const totals: number[] = [];
  for (let i = 0; i < 3; i++) {
    totals.push((await a.ask("-c", "s.chat", "-o", "s.chat", `q${i}`)).total_usage.tt);
  }
  return totals;
}

Deno.test("task route continued with -c: each run's total_usage is that run's own", async () => {
  assert.deepEqual(await continuedTotals("Boss"), [45, 45, 45]);
});

Deno.test("a task-route specialist inheriting the conversation: each -c run's total_usage is its own", async () => {
  assert.deepEqual(await continuedTotals("Worker", { inherit: "conversation" }), [45, 45, 45]);
});

Deno.test("runTotalUsage: a job= receipt naming a directory, a missing job or a path out of the jobs dir counts nothing, with a warning each", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(join(home, "var", "jobs", "W", "ask", "dir.chat"), { recursive: true });
  put(t.path, "outside.chat", "meta: pt=1000 ct=1 tt=1001 inference_id=x\n");
  const refs = ["W/ask/dir.chat", "W/ask/missing.chat", "../../outside.chat"];
  const output = {
    role: "function_call_output",
    content: JSON.stringify({
      name: "ask",
      content: "ok",
      id: "c1",
      agent_meta: refs.map((r) => ({ role: "meta", content: `job=${r}` })),
    }),
  };
  const own = [{ role: "meta", content: "pt=10 ct=5 tt=15 inference_id=a" }];
  const call = {
    role: "function_call",
    content: JSON.stringify({ name: "ask", arguments: { agent: "W", prompt: "p" }, id: "c1" }),
  };
  const { totals, warnings } = await runTotalUsage(own, [call, output], {
    env: { SCOUT_HOME: home },
    cwd: t.path,
  });
  assert.equal(totals.tt, 15);
  const at = (ref: string) =>
    `agent_meta receipt unresolved_job_reference in chat (unsaved) at output 1 (call c1, tool ask) reference ${ref}`;
  assert.deepEqual(warnings, [
    {
      code: "unresolved_job_reference",
      file: null,
      message: `job "W/ask/dir.chat" is no job file in any jobs root: ${at(refs[0]!)}`,
    },
    {
      code: "unresolved_job_reference",
      file: null,
      message: `job "W/ask/missing.chat" is no job file in any jobs root: ${at(refs[1]!)}`,
    },
    {
      code: "unresolved_job_reference",
      file: null,
      message: `job "../../outside.chat" resolves outside every jobs root: ${at(refs[2]!)}`,
    },
  ]);
});

/** A chat whose one `ask` output carries `agent_meta` as given. */
function withReceipt(agentMeta: unknown): Message[] {
  return [
    {
      role: "function_call",
      content: JSON.stringify({ name: "ask", arguments: { agent: "W", prompt: "p" }, id: "c1" }),
    },
    {
      role: "function_call_output",
      content: JSON.stringify({ name: "ask", content: "ok", id: "c1", agent_meta: agentMeta }),
    },
  ];
}

Deno.test("runTotalUsage: a malformed receipt entry counts nothing, with a receipt_problem warning on one line", async () => {
  await using t = await tempDir();
  const produced = withReceipt([
    { role: "meta", content: "pt=10 ct=5 tt=15 inference_id=w1" },
    "oops\n\u001b[31m",
  ]);
  const { totals, warnings } = await runTotalUsage([], produced, {
    env: { SCOUT_HOME: join(t.path, "home") },
    cwd: t.path,
  });
  assert.equal(totals.tt, 15);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]!.code, "receipt_problem");
  assert.equal(warnings[0]!.file, null);
  assert.match(
    warnings[0]!.message,
    /^entry 1 is a string, not an object: agent_meta receipt not_a_hash in chat \(unsaved\) /,
  );
  assert.ok(warnings[0]!.message.endsWith(" reference oops\\n\\u001b[31m"), warnings[0]!.message);
});

Deno.test("runTotalUsage: a job's log that cannot be read (mode 000, unprivileged reader) is a chat_unreadable warning naming it", async () => {
  await using t = await tmp();
  openDir(t.path);
  const jobs = join(t.path, "home", "var", "jobs");
  put(jobs, "W/ask/j.chat", "assistant: done\n");
  put(jobs, "W/ask/j.chat.files/log/agent.chat", "meta: pt=100 ct=1 tt=101 inference_id=w1\n");
  for (const d of ["home", "home/var", "home/var/jobs", "home/var/jobs/W", "home/var/jobs/W/ask"]) {
    openDir(join(t.path, d));
  }
  for (const d of ["j.chat.files", "j.chat.files/log"]) openDir(join(jobs, "W/ask", d));
  const log = join(jobs, "W/ask/j.chat.files/log/agent.chat");
  chmodSync(log, 0o000);
  const produced = withReceipt([{ role: "meta", content: "job=W/ask/j.chat" }]);
  const out = await runUnprivileged(
    t.path,
    `import { runTotalUsage } from "file://$ROOT/src/cli/run_usage.ts";
const own = [{ role: "meta", content: "pt=10 ct=5 tt=15 inference_id=a" }];
const r = await runTotalUsage(own, ${JSON.stringify(produced)}, {
  env: { SCOUT_HOME: ${JSON.stringify(join(t.path, "home"))} },
  cwd: ${JSON.stringify(t.path)},
});
console.log(JSON.stringify(r));`,
  ) as { totals: { tt: number }; warnings: unknown[] };
  assert.equal(out.totals.tt, 15);
  assert.deepEqual(out.warnings, [
    { code: "chat_unreadable", file: log, message: `Permission denied: "${log}"` },
  ]);
});

Deno.test("agent ask --json: a receipt's job gone before the run ends is a warning on stderr and in usage_warnings", async () => {
  await using t = await tempDir();
  const jobs = join(t.path, "home", "var", "jobs");
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const usage = { pt: 10, ct: 5 };
      if (msgs[0]!.content === "You are Worker") return { text: "worker answer", usage };
      if (msgs.at(-1)!.role === "tool") {
        Deno.removeSync(jobs, { recursive: true }); // the Worker's ask job, named by the receipt
        return { text: "boss done", usage };
      }
      return {
        toolCalls: [{ name: "ask", id: "c1", arguments: { agent: "Worker", prompt: "p" } }],
        usage,
      };
    },
  });
  agents(t.path, srv, "Worker");
  const r = await runMain(["agent", "ask", "Boss", "--no-cache", "--json", "go"], {
    env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" },
    cwd: t.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.total_usage.tt, 30); // the Boss's two; the Worker's job cannot be read
  assert.equal(out.usage_warnings.length, 1, r.stdout);
  const w = out.usage_warnings[0];
  assert.equal(w.code, "unresolved_job_reference");
  assert.equal(w.file, null);
  assert.match(w.message, /^job "UsageWorker\/ask\/.*" is no job file in any jobs root: /);
  assert.equal(r.stderr, `scout-ai: warning: total_usage leaves out: ${w.message}\n`);
});

/** The `job=` receipts of a chat file, in order. */
function jobReceipts(file: string): string[] {
  return [...Deno.readTextFileSync(file).matchAll(/job=([^"\s]+)/g)].map((m) => m[1]!);
}

Deno.test("--no-cache twice: the Worker's rerun of the same ask job gets its own job, and prov counts each run once", async () => {
  await using t = await tempDir();
  await using srv = await server();
  const a = agents(t.path, srv, "Worker");
  const saved = join(t.path, "s.chat");
  for (const q of ["q0", "q1"]) {
    assert.equal((await a.ask("-c", saved, "-o", saved, q)).total_usage.tt, 45);
  }
  assert.equal(srv.requests.length, 6);
  // each run: the Boss's two inferences and the Worker's one, 15 tokens each
  assert.equal(await a.prov(saved), 90);
  // same prompt, same job inputs; the rerun must not overwrite the job the first receipt names
  const [first, second] = jobReceipts(saved);
  assert.ok(first !== undefined && second !== undefined && first !== second, `${first} ${second}`);
});

Deno.test("cached runs still reuse the Worker's ask job: one inference, counted once", async () => {
  await using t = await tempDir();
  await using srv = await server();
  const a = agents(t.path, srv, "Worker", { cache: true });
  const saved = join(t.path, "s.chat");
  assert.equal((await a.ask("-c", saved, "-o", saved, "q0")).total_usage.tt, 45);
  assert.equal((await a.ask("-c", saved, "-o", saved, "q1")).total_usage.tt, 45);
  assert.equal(srv.requests.length, 5); // the Worker's job answered the second run
  const [first, second] = jobReceipts(saved);
  assert.equal(second, first);
  assert.equal(await a.prov(saved), 75);
});

Deno.test("a cached rerun of a Worker ask job that failed runs as rerun-2: the failed run's logs and tokens stay", async () => {
  await using t = await tempDir();
  let failing = true; // the first run's Worker fails after one billed inference
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const usage = { pt: 10, ct: 5 };
      if (msgs[0]!.content === "You are Worker") {
        if (msgs.at(-1)!.role !== "tool") {
          return { toolCalls: [{ name: "nope", id: "w1", arguments: {} }], usage };
        }
        if (failing) return { status: 400, message: "bad request" };
        return { text: "worker answer", usage };
      }
      if (msgs.at(-1)!.role === "tool") return { text: "boss done", usage };
      return {
        toolCalls: [{
          name: "ask",
          id: `c${msgs.length}`,
          arguments: { agent: "Worker", prompt: "p" },
        }],
        usage,
      };
    },
  });
  const a = agents(t.path, srv, "Worker", { cache: true });
  const saved = join(t.path, "s.chat");
  await a.ask("-c", saved, "-o", saved, "q0"); // Boss 2 × 15, the failed Worker 15
  failing = false;
  // Boss 2 × 15, the Worker's second round 15: its first, paid by the failed run, replays from
  // the cache (R106-1: a rerun's keys name the first run's job)
  await a.ask("-c", saved, "-o", saved, "q1");
  const [first, second] = jobReceipts(saved);
  assert.ok(first !== undefined && second !== undefined && first !== second, `${first} ${second}`);
  assert.match(second!, /\/rerun-2_/);
  assert.equal(await a.prov(saved), 90); // every inference once
  // the failed job's log still holds its own inference
  const failedLog = Deno.readTextFileSync(
    join(
      t.path,
      "home",
      "var",
      "jobs",
      first!.replace(/\.chat$/, ".chat.files"),
      "log",
      "agent.chat",
    ),
  );
  assert.match(failedLog, /function_call_output/);
});
