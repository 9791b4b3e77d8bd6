/**
 * A chat task aborted after a paid round, then run again with `workflow
 * task` under the same name (R109-3): the rerun happens in place, but the
 * first attempt's evidence — its `.info` and its logs — is kept as an
 * earlier attempt, and `llm prov` of the job counts and shows both attempts'
 * tokens (tree, JSON, DOT). An explicit `--clean` deletes everything, and a
 * job rerun after success is given no attempt. Real processes from source, a
 * real SIGTERM, the loopback provider with scripted usage.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { askJob, routeWorkflowText, sigtermOnceDelegated } from "../support/route_workflow.ts";
import { put } from "../support/files.ts";

/** The one job of Boss's route workflow (its path without `.info`). */
const bossJob = (home: string) => askJob(home, "Boss");

/** Scripted usage: Boss's first round, Worker's answer, Boss's final round. */
const BOSS_CALL = { pt: 11, ct: 7 };
const WORKER = { pt: 5, ct: 3 };
const BOSS_FINAL = { pt: 13, ct: 4 };

type Msg = { role: string; content: unknown };

/**
 * Boss (a chat task, `socialize: true`) asks Worker; in the first run Worker's
 * reply is held and the process gets SIGTERM once Worker's request is in
 * (after Boss's paid round); later runs get Worker's reply at once.
 */
async function setup(dir: string) {
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  let holdWorker = true;
  const srv = await startProviderServer({
    fallback: (r) => {
      const msgs = r.body.messages as Msg[];
      if (/You are Worker/.test(String(msgs[0]!.content))) {
        return holdWorker ? { text: "late", until: held } : { text: "42", usage: WORKER };
      }
      if (msgs.some((m) => m.role === "tool")) {
        return { text: "The answer is 42", usage: BOSS_FINAL };
      }
      return {
        toolCalls: [{
          name: "ask",
          id: "call_w1",
          arguments: { agent: "Worker", prompt: "Compute the answer" },
        }],
        usage: BOSS_CALL,
      };
    },
  });
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  const boss = join(home, "Agent/Boss");
  put(boss, "start_chat", "system:\n\nYou are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(boss, "workflow.ts", routeWorkflowText("Boss", boss));
  put(home, "Agent/Worker/start_chat", "system:\n\nYou are Worker\n\nendpoint: ep\n");
  writeFileSync(join(dir, "q.chat"), "user:\n\nDelegate this\n");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" };
  const task = ["workflow", "task", boss, "ask", "--chat", "q.chat"];
  return {
    srv,
    home,
    env,
    task,
    answerWorker: () => {
      holdWorker = false;
      release();
    },
    async [Symbol.asyncDispose]() {
      release();
      await srv[Symbol.asyncDispose]();
    },
  };
}

/** Runs `workflow task` and sends SIGTERM once Worker's request is in. */
async function abortedRun(dir: string, s: Awaited<ReturnType<typeof setup>>): Promise<void> {
  const child = spawnScout(s.task, { cwd: dir, env: s.env });
  const out = await sigtermOnceDelegated(child, () => s.srv.requests.length);
  assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
}

interface ProvJson {
  nodes: {
    id: string;
    label: string | null;
    job: { status: string | null; attempt?: number } | null;
    tokens: { direct: Record<string, number>; subtree: Record<string, number> };
  }[];
  edges: { from: string; to: string; relation: string }[];
  totals: { deduplicated_total: Record<string, number> };
}

async function provJson(job: string, dir: string, env: Record<string, string>) {
  const prov = await runScout(["llm", "prov", job, "--json"], { env, cwd: dir });
  assert.equal(prov.code, 0, prov.stderr);
  return JSON.parse(prov.stdout) as ProvJson;
}

const tokens = (...us: { pt: number; ct: number }[]) => ({
  pt: us.reduce((a, u) => a + u.pt, 0),
  ct: us.reduce((a, u) => a + u.ct, 0),
  tt: us.reduce((a, u) => a + u.pt + u.ct, 0),
});

const ptCtTt = (t: Record<string, number>) => ({ pt: t.pt, ct: t.ct, tt: t.tt });

Deno.test("workflow task: a chat task aborted after a paid round and run again keeps its first attempt, and llm prov counts both (R109-3)", async () => {
  await using d = await tempDir();
  await using s = await setup(d.path);
  await abortedRun(d.path, s);
  const job = bossJob(s.home);
  assert.equal(JSON.parse(readFileSync(`${job}.info`, "utf8")).status, "aborted");

  s.answerWorker();
  const rerun = await runScout(s.task, { env: s.env, cwd: d.path });
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.match(rerun.stdout, /The answer is 42/);
  // Boss's first round was paid twice: its cache entry waits for its tool calls to end
  const bossCalls = s.srv.requests.filter((r) =>
    !/You are Worker/.test(String((r.body.messages as Msg[])[0]!.content)) &&
    !(r.body.messages as Msg[]).some((m) => m.role === "tool")
  );
  assert.equal(bossCalls.length, 2);

  const first = tokens(BOSS_CALL);
  const second = tokens(BOSS_CALL, WORKER, BOSS_FINAL);
  const both = tokens(BOSS_CALL, BOSS_CALL, WORKER, BOSS_FINAL); // pt 40, ct 21, tt 61
  const report = await provJson(job, d.path, s.env);
  assert.deepEqual(ptCtTt(report.totals.deduplicated_total), both);
  assert.deepEqual(ptCtTt(report.nodes[0]!.tokens.subtree), both);

  // the job is done in place; its aborted run is kept beside it, as a job of its own
  assert.equal(JSON.parse(readFileSync(`${job}.info`, "utf8")).status, "done");
  const attempt = join(`${job}.files`, ".attempts", "1");
  assert.equal(JSON.parse(readFileSync(`${attempt}.info`, "utf8")).status, "aborted");
  assert.match(readFileSync(join(`${attempt}.files`, "log/agent.chat"), "utf8"), /call_w1/);

  const node = report.nodes.find((n) => n.job?.attempt === 1);
  assert.ok(node !== undefined, JSON.stringify(report.nodes.map((n) => n.id)));
  assert.equal(node.label, "attempt 1 (aborted)");
  assert.deepEqual(ptCtTt(node.tokens.subtree), first);
  assert.deepEqual(ptCtTt(report.nodes[0]!.tokens.direct), second);
  assert.deepEqual(
    report.edges.filter((e) => e.relation === "attempt").map((e) => [e.from, e.to]),
    [[report.nodes[0]!.id, node.id]],
  );

  const tree = await runScout(["llm", "prov", job], { env: s.env, cwd: d.path });
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /^job total=61 prompt=40 cont=21 Boss\/ask /, tree.stdout);
  assert.match(
    tree.stdout,
    /^ {2}job total=18 prompt=11 cont=7 attempt 1 \(aborted\)$/m,
    tree.stdout,
  );
  const dot = await runScout(["llm", "prov", job, "--dot", "-"], { env: s.env, cwd: d.path });
  assert.equal(dot.code, 0, dot.stderr);
  assert.match(dot.stdout, /label="Job\\nattempt 1 \(aborted\)\\n18 tokens"/, dot.stdout);
  assert.match(dot.stdout, /label="earlier attempt"/);

  // an explicit clean deletes everything, the attempts too (as Scout's clean does)
  const cleaned = await runScout([...s.task, "--clean"], { env: s.env, cwd: d.path });
  assert.equal(cleaned.code, 0, cleaned.stderr);
  assert.equal(existsSync(join(`${job}.files`, ".attempts")), false);
});

Deno.test("workflow task: a chat task run again after success (--clean, --recompute) is given no attempt (R109-3)", async () => {
  await using d = await tempDir();
  await using s = await setup(d.path);
  s.answerWorker();
  for (const flags of [[], ["--clean"], ["--recompute"]]) {
    const r = await runScout([...s.task, ...flags], { env: s.env, cwd: d.path });
    assert.equal(r.code, 0, r.stderr);
  }
  const job = bossJob(s.home);
  assert.equal(existsSync(join(`${job}.files`, ".attempts")), false);
  const report = await provJson(job, d.path, s.env);
  assert.deepEqual(report.edges.filter((e) => e.relation === "attempt"), []);
  // one run's tokens (the later runs replay the first's rounds from the inference cache)
  assert.deepEqual(
    ptCtTt(report.totals.deduplicated_total),
    tokens(BOSS_CALL, WORKER, BOSS_FINAL),
  );
});
