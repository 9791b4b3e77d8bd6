/**
 * What the logs written as a chat task runs (R106-3) keep when `agent ask` is
 * killed by SIGKILL, on the example society (fixtures/agents) run from source
 * against the loopback provider:
 *
 * - R111-1: a delegated job (the Planner hands off to the Critic, whose
 *   inferences run as jobs `Critic/ask/…`) killed mid-run is linked from the
 *   Planner's logs (`society/Critic/default.chat` ends with its `meta job=`
 *   marker), so `llm prov` of the Planner's job counts what the Critic's job
 *   paid;
 * - R111-2: the reply a paid round bought is in the log with its meta record,
 *   so a call still running when the process died shows as a missing output.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DENO, homeIn, ROOT, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { type ScriptStep, startProviderServer } from "../support/provider_server.ts";

const QUESTION = "Plan a crusty loaf and a sponge cake for Saturday";
const SCRIPT: ScriptStep[] = JSON.parse(
  readFileSync(join(ROOT, "fixtures/agents/script.json"), "utf8"),
);

/** The `<job>.chat` path of the only job under `home`'s `var/jobs/<wf>/ask`. */
function askJob(home: string, wf: string): string {
  const dir = join(home, "var/jobs", wf, "ask");
  const names = readdirSync(dir).filter((n) => n.endsWith(".info")).map((n) => n.slice(0, -5));
  assert.equal(names.length, 1, `one job in ${dir}: ${names.join(", ")}`);
  return join(dir, names[0]!);
}

/** Whether `file` exists and its text matches `re`. */
function holds(file: string, re: RegExp): boolean {
  return existsSync(file) && re.test(readFileSync(file, "utf8"));
}

/**
 * Runs `agent ask Planner` on the society in `home` (its endpoint the loopback
 * provider answering `script`), waits for request `held` (held by the
 * script) and then, at most 10 s, for `checkpoint()` — the log the fix writes;
 * then kills the command's process group with SIGKILL.
 */
async function killedRun(
  dir: string,
  env: Record<string, string> & { SCOUT_HOME: string },
  o: { script: ScriptStep[]; held: number; checkpoint: () => boolean },
): Promise<void> {
  let release = () => {};
  const until = new Promise<void>((r) => release = r);
  const script = o.script.map((s, i) => i === o.held - 1 ? { ...s, until } : s);
  await using srv = await startProviderServer({ script });
  const home = env.SCOUT_HOME;
  mkdirSync(join(home, "etc/AI"), { recursive: true });
  writeFileSync(
    join(home, "etc/AI/loopback.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: scripted-bakery\nkey: loopback-needs-no-key\n`,
  );
  writeFileSync(join(dir, "plan.chat"), "");
  const args = ["agent", "ask", "Planner", "-c", "plan.chat", "-o", "plan.chat", QUESTION];
  // the command leads a process group of its own, as a cluster's job does
  const child = spawn(DENO, [...SCOUT_SOURCE_ARGS, ...args, "--no-stream"], {
    cwd: dir,
    env,
    stdio: "ignore",
    detached: true,
  });
  const exited = new Promise((r) => child.on("exit", r));
  try {
    const t0 = Date.now();
    while (srv.requests.length < o.held) {
      if (Date.now() - t0 > 60_000) throw new Error(`request ${o.held} never arrived`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const t1 = Date.now(); // its checkpoint is written after the paid round: wait for it, bounded
    while (!o.checkpoint() && Date.now() - t1 < 10_000) await new Promise((r) => setTimeout(r, 50));
  } finally {
    process.kill(-child.pid!, "SIGKILL");
    await exited;
    release(); // the server can close: its client is gone
  }
}

/** A SCOUT_HOME in `dir` with the example society, and the command's env. */
function society(dir: string): Record<string, string> & { SCOUT_HOME: string } {
  const env = { ...homeIn(dir), ASK_ENDPOINT: "loopback", NO_COLOR: "1" };
  cpSync(join(ROOT, "fixtures/agents/Agent"), join(env.SCOUT_HOME, "Agent"), { recursive: true });
  return env;
}

Deno.test("SIGKILL while a delegated chat-task job runs: the Planner's logs link that job and llm prov counts it (R111-1)", async () => {
  await using d = await tempDir();
  const env = society(d.path);
  const home = env.SCOUT_HOME;
  // the Critic asks the Librarian: its job pays a round, then waits on the Librarian's
  appendFileSync(join(home, "Agent/Critic/start_chat"), "\nsocialize: true\n");
  const librarian = { agent: "Librarian", prompt: "Which book covers oven temperatures?" };
  const script: ScriptStep[] = [
    ...SCRIPT.slice(0, 9),
    {
      toolCalls: [{ name: "ask", id: "call_k1", arguments: librarian }],
      usage: { pt: 157, ct: 53 },
    },
    { text: "Never sent: the process is killed first.", usage: { pt: 163, ct: 59 } },
    { text: "The oven must cool between the bakes.", usage: { pt: 167, ct: 61 } },
    SCRIPT[10]!,
  ];
  const critic = () => join(`${askJob(home, "Planner")}.files`, "log/society/Critic/default.chat");
  await killedRun(d.path, env, {
    script,
    held: 11,
    checkpoint: () =>
      existsSync(join(home, "var/jobs/Planner/ask")) && holds(critic(), /^meta: job=/m),
  });
  const job = askJob(home, "Planner");
  const prov = await runScout(["llm", "prov", job, "--json"], { env, cwd: d.path });
  assert.equal(prov.code, 0, prov.stderr);
  const report = JSON.parse(prov.stdout);
  // steps 1–9 (the Planner's, the Researcher's, the Librarian's) and the Critic job's round
  const paid = SCRIPT.slice(0, 9).map((s) => s.usage as { pt: number; ct: number });
  const pt = paid.reduce((n, u) => n + u.pt, 0) + 157;
  const ct = paid.reduce((n, u) => n + u.ct, 0) + 53;
  assert.equal(pt, 1224);
  assert.deepEqual(
    [report.totals.deduplicated_total.pt, report.totals.deduplicated_total.ct],
    [pt, ct],
    JSON.stringify(report.totals),
  );
  assert.equal(report.complete, true, JSON.stringify(report.warnings));
  const criticJob = askJob(home, "Critic");
  assert.match(
    readFileSync(join(`${criticJob}.files`, "log/agent.chat"), "utf8"),
    /^meta: pt=157 ct=53 /m,
  );
  const linked = readFileSync(critic(), "utf8");
  assert.ok(
    linked.trimEnd().endsWith(`meta: job=Critic/ask/${criticJob.split("/").at(-1)}`),
    linked,
  );
});

Deno.test("SIGKILL while a specialist answers: the Planner's log keeps the call its paid round made, with no output (R111-2)", async () => {
  await using d = await tempDir();
  const env = society(d.path);
  const home = env.SCOUT_HOME;
  // request 7: the Researcher's answer to the Planner's second call, held
  const log = () => join(`${askJob(home, "Planner")}.files`, "log/agent.chat");
  await killedRun(d.path, env, {
    script: SCRIPT,
    held: 7,
    checkpoint: () =>
      existsSync(join(home, "var/jobs/Planner/ask")) && holds(log(), /And for the sponge cake\?/),
  });
  const text = readFileSync(log(), "utf8");
  // the paid round's meta record, then its reply: the call, not yet answered
  assert.match(
    text,
    /^meta: pt=127 ct=29 [^\n]*\n\nfunction_call: \{"name":"ask",[^\n]*"And for the sponge cake\?"[^\n]*"id":"call_r2"\}\s*$/m,
    text,
  );
  const prov = await runScout(["llm", "prov", askJob(home, "Planner"), "--tools", "--json"], {
    env,
    cwd: d.path,
  });
  assert.equal(prov.code, 0, prov.stderr);
  const report = JSON.parse(prov.stdout);
  assert.deepEqual(report.summary, { calls: 4, ok: 3, error: 0, missing_output: 1 }, prov.stdout);
  const missing = report.calls.filter((c: { status: string }) => c.status !== "ok");
  assert.deepEqual(missing.map((c: { callId: string }) => c.callId), ["call_r2"], prov.stdout);
});
