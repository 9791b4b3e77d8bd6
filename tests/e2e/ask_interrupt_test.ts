/**
 * Interrupting `agent ask` / `llm ask` as real processes (from source):
 * Ctrl-C on the task route (the answer comes from a job of the agent's
 * `ask` task) ends like on the direct route — exit 130, the question kept
 * in `-o` with the job's marker, the job marked aborted with the agent's
 * partial log — and SIGTERM (SLURM's time limit,
 * `scancel`) ends an ask with exit 143 and the chat so far saved — at once,
 * also when a tool call (a slow workflow task) is running (R81-5).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnScout, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { routeWorkflowText } from "../support/route_workflow.ts";
import { put } from "../support/files.ts";

/** Spawns the CLI, signals it once the provider is answering, returns its end. */
async function interrupted(
  srv: ProviderServer,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
  signal: Deno.Signal,
  stream: boolean,
  ready?: () => boolean,
) {
  const child = spawnScout(args, opts);
  // the request is in (streamed replies: the answer has begun)
  const begun = ready ??
    (() => srv.requests[0] !== undefined && (!stream || srv.requests[0].firstByteAt));
  while (!begun()) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300));
  const signalledAt = Date.now();
  try {
    child.kill(signal);
  } catch (e) {
    const out = await child.output();
    throw new Error(`${(e as Error).message}: ${new TextDecoder().decode(out.stderr)}`);
  }
  const out = await child.output();
  const afterSignalMs = Date.now() - signalledAt;
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr), afterSignalMs };
}

const slow = { text: Array.from({ length: 40 }, (_, i) => `w${i} `), chunkDelayMs: 100 };

Deno.test("agent ask on the task route: Ctrl-C exits 130, keeps the question in -o, the job aborted", async () => {
  await using t = await tempDir();
  // the job's agent does not stream: its reply is late instead
  await using srv = await startProviderServer({
    fallback: () => ({ text: "late", delayMs: 2000 }),
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  const here = join(t.path, "Agent", "Slow");
  put(here, "start_chat", "system: You are slow\n\nendpoint: ep\n");
  put(here, "workflow.ts", routeWorkflowText("Slow", here));
  const r = await interrupted(
    srv,
    ["agent", "ask", "Slow", "-o", "s.chat", "Tell a long story"],
    { cwd: t.path, env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" } },
    "SIGINT",
    false,
  );
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /scout-ai: Interrupted/);
  const saved = readFileSync(join(t.path, "s.chat"), "utf8");
  assert.match(saved, /Tell a long story/);
  const jobs = join(home, "var", "jobs", "Slow", "ask");
  const info = readdirSync(jobs).find((f) => f.endsWith(".info"))!;
  assert.equal(JSON.parse(readFileSync(join(jobs, info), "utf8")).status, "aborted");
  // the chat points at the aborted job, which keeps the agent's partial log
  const job = info.replace(/\.info$/, "");
  assert.match(saved, new RegExp(`meta: job=Slow/ask/${job}\n`));
  const log = readFileSync(join(jobs, `${job}.files`, "log", "agent.chat"), "utf8");
  assert.match(log, /Tell a long story/);
});

Deno.test("llm ask: SIGTERM exits 143 and keeps the question and the partial answer in -o", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => slow });
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--stream"];
  const r = await interrupted(
    srv,
    ["llm", "ask", ...flags, "-o", "s.chat", "Tell a long story"],
    { cwd: t.path, env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" } },
    "SIGTERM",
    true,
  );
  assert.equal(r.code, 143, r.stderr);
  assert.match(r.stderr, /scout-ai: Terminated/);
  const chat = readFileSync(join(t.path, "s.chat"), "utf8");
  assert.match(chat, /Tell a long story/);
  assert.match(chat, /incomplete=true/);
});

Deno.test("agent ask: SIGTERM also stops a specialist's inference in flight; exit 143 at once, -o saved", async () => {
  await using t = await tempDir();
  // the caller asks Worker; Worker's reply would take 10 s
  await using srv = await startProviderServer({
    fallback: (r) => {
      const msgs = r.body.messages as { role: string; content: string }[];
      if (msgs[0]!.content === "You are Worker") return { text: "late", delayMs: 10_000 };
      if (msgs.at(-1)!.role === "tool") return { text: "done" };
      return {
        toolCalls: [{ name: "ask", id: "c1", arguments: { agent: "Worker", prompt: "w" } }],
      };
    },
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(
    t.path,
    "Agent/Boss/start_chat",
    "system:\n\nYou are Boss\n\nendpoint: ep\n\nsocialize: true\n",
  );
  put(t.path, "Agent/Worker/start_chat", "system:\n\nYou are Worker\n\nendpoint: ep\n");
  const began = Date.now();
  const r = await interrupted(
    srv,
    ["agent", "ask", "Boss", "--no-cache", "-o", "s.chat", "Delegate this"],
    { cwd: t.path, env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" } },
    "SIGTERM",
    false,
    () => srv.requests.length >= 2, // Worker's request is out
  );
  assert.equal(r.code, 143, r.stderr);
  assert.ok(Date.now() - began < 6_000, `ended ${Date.now() - began} ms after the start`);
  const saved = readFileSync(join(t.path, "s.chat"), "utf8");
  assert.match(saved, /Delegate this/);
  assert.match(saved, /function_call:/);
});

Deno.test("llm ask: SIGTERM during a slow workflow tool call exits 143 at once, saves the chat with the call interrupted, the job aborted (R81-5)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  put(
    t.path,
    "workflows/Slow/workflow.ts",
    `export default (api) => api.workflow("Slow", { tasks: { nap: { type: "string",
  inputs: { secs: api.input.integer({ default: 20, description: "s" }) },
  run: async ({ secs }) => { await new Promise((r) => setTimeout(r, secs * 1000)); return "slept"; } } } });
`,
  );
  await using srv = await startProviderServer({
    script: [{ toolCalls: [{ name: "nap", arguments: { secs: 20 }, id: "c1" }] }, { text: "done" }],
  });
  const jobs = join(home, "var/jobs/Slow/nap");
  const info = () => {
    const f = readdirSync(jobs).find((n) => n.endsWith(".info"));
    return f === undefined ? null : JSON.parse(readFileSync(join(jobs, f), "utf8"));
  };
  const started = () => {
    try {
      return info()?.status === "start";
    } catch {
      return false;
    }
  };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const r = await interrupted(
    srv,
    ["llm", "ask", ...flags, "-w", "Slow", "-o", "s.chat", "nap 20"],
    { cwd: t.path, env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" } },
    "SIGTERM",
    false,
    started,
  );
  assert.equal(r.code, 143, r.stderr);
  assert.match(r.stderr, /scout-ai: Terminated/);
  assert.ok(r.afterSignalMs < 2_500, `exited ${r.afterSignalMs} ms after the signal`);
  assert.equal(srv.requests.length, 1, "no further round was asked for");
  const saved = readFileSync(join(t.path, "s.chat"), "utf8");
  assert.match(saved, /nap 20/);
  assert.match(saved, /function_call: \{"name":"nap","arguments":\{"secs":20\},"id":"c1"\}/);
  const line = saved.split("\n").find((l) => l.startsWith("function_call_output: "))!;
  const env = JSON.parse(line.slice("function_call_output: ".length));
  assert.equal(env.error, "error");
  assert.deepEqual(JSON.parse(env.content), {
    exception: "Tool call interrupted before it finished: Terminated",
    exception_line: null,
  });
  assert.doesNotMatch(saved, /\.ts:\d+|\$bunfs|"stack"/, "no stack frames in the chat");
  assert.equal(info().status, "aborted");
  assert.deepEqual(info().messages, ["Aborted: interrupted by SIGTERM"]);
});

// --inline: the replies got before the signal are written; the exit is the signal's (R91-6)
const INLINE = "def f():\n    # ask: one\n    pass\n\n# ask: two\nx = 1\n";
for (
  const [signal, code, word] of [["SIGTERM", 143, "Terminated"], ["SIGHUP", 129, "Hangup"]] as const
) {
  Deno.test(`llm ask --inline: ${signal} during the second question exits ${code}, the first reply written (R91-6)`, async () => {
    await using t = await tempDir();
    await using srv = await startProviderServer({
      script: [{ text: "first reply" }, { text: "late", delayMs: 3_000 }],
    });
    writeFileSync(join(t.path, "in.py"), INLINE);
    const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    const r = await interrupted(
      srv,
      ["llm", "ask", ...flags, "--inline", "in.py"],
      { cwd: t.path, env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" } },
      signal,
      false,
      () => srv.requests.length >= 2,
    );
    assert.equal(r.code, code, r.stderr);
    assert.match(r.stderr, new RegExp(`scout-ai: ${word}`));
    const text = readFileSync(join(t.path, "in.py"), "utf8");
    assert.match(text, /# ask: one\n# Response start\nfirst reply\n# Response end\n/);
    assert.doesNotMatch(text, /late/);
  });
}
