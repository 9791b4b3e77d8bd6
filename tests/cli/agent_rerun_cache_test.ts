/**
 * R106-1: a cached rerun of a failed agent job (it runs as `rerun-<n>`, the
 * failed run's job kept as evidence) replays the rounds the failed run paid
 * for from the inference cache: its keys name the first run's job where the
 * rerun's agent is told its own (docs/spec-notes/agents-core.md §1.4 step 2),
 * so only what failed is asked again. Through the real CLI against the
 * loopback provider, with the example society (fixtures/agents).
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, spawnScout, tempDir } from "../support/cli.ts";
import { type ScriptStep, startProviderServer } from "../support/provider_server.ts";

const SCRIPT: ScriptStep[] = JSON.parse(
  readFileSync(join(ROOT, "fixtures", "agents", "script.json"), "utf8"),
);
/** Tokens of script steps [from, to) (each step's pt + ct, distinct primes). */
const tokens = (from: number, to: number) =>
  SCRIPT.slice(from, to).reduce((n, s) => n + s.usage!.pt! + s.usage!.ct!, 0);

/**
 * A home with the example agents and a loopback endpoint; the provider answers
 * with the script it is given, then HTTP 500s (no retries).
 */
async function setup(dir: string) {
  const state = {
    served: 0,
    script: SCRIPT.slice(0, 5),
    after: { status: 500, message: "down" } as ScriptStep,
    /** Called when a request gets `after`. */
    past: () => {},
  };
  const srv = await startProviderServer({
    fallback: () => {
      if (state.served < state.script.length) return state.script[state.served++]!;
      state.past();
      return state.after;
    },
  });
  const home = join(dir, "home");
  cpSync(join(ROOT, "fixtures", "agents", "Agent"), join(home, "Agent"), { recursive: true });
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "loopback.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: scripted-bakery\nkey: loopback-needs-no-key\nmax_retries: 0\n`,
  );
  const env = { SCOUT_HOME: home, ASK_ENDPOINT: "loopback" };
  const ask = (...flags: string[]) =>
    runScout(["agent", "ask", "Planner", "--json", ...flags, "Plan a spelt loaf"], {
      env,
      cwd: dir,
    });
  const jobs = join(home, "var", "jobs", "Planner", "ask");
  /** Planner round 1 → Researcher → Librarian → Researcher's answer, then the Planner's round 2 fails. */
  const failFirst = async () => {
    const first = await ask();
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /Planner\/ask\/Default_[0-9a-f]{32}\.chat" failed: .*HTTP 500/);
    assert.equal(srv.requests.length, 6); // five paid, the sixth refused
    const info = readdirSync(jobs).find((f) => /^Default_.*\.chat\.info$/.test(f))!;
    assert.ok(info, readdirSync(jobs).join(" "));
    return info.replace(/\.info$/, "");
  };
  /** The same five rounds, then the run is terminated (SIGTERM) while the sixth waits. */
  const abortFirst = async () => {
    const sixth = new Promise<void>((r) => state.past = r);
    let release!: () => void;
    state.after = { text: "never read", until: new Promise<void>((r) => release = r) };
    const child = spawnScout(["agent", "ask", "Planner", "Plan a spelt loaf"], {
      cwd: dir,
      env,
      stdout: "null",
    });
    await sixth;
    child.kill("SIGTERM");
    const { code } = await child.output();
    release();
    state.after = { status: 500, message: "down" };
    state.past = () => {};
    assert.equal(code, 143);
    assert.equal(srv.requests.length, 6); // five paid, the sixth never answered
    const failed = readdirSync(jobs).find((f) => /^Default_.*\.chat\.info$/.test(f))!;
    const info = readFileSync(join(jobs, failed), "utf8");
    assert.match(info, /aborted/);
    return failed.replace(/\.info$/, "");
  };
  return { srv, state, env, ask, jobs, failFirst, abortFirst };
}

/** Whether a request is the Planner's round 1 (its system prompt, no tool output yet). */
function plannerRoundOne(body: Record<string, unknown>): boolean {
  const msgs = body.messages as { role: string; content: unknown }[];
  return String(msgs[0]!.content).startsWith("You are the Planner") &&
    !msgs.some((m) => m.role === "tool");
}

for (const how of ["failed", "aborted"] as const) {
  Deno.test(
    `R106-1: a rerun of a Planner job ${
      how === "failed" ? "in error" : "aborted (SIGTERM)"
    } asks only what the first run did not pay for`,
    async () => {
      await using t = await tempDir();
      const { srv, state, env, ask, jobs, failFirst, abortFirst } = await setup(t.path);
      await using _srv = srv;
      const failed = how === "failed" ? await failFirst() : await abortFirst();
      state.served = 0;
      state.script = SCRIPT.slice(5);
      const before = srv.requests.length;
      const second = await ask();
      assert.equal(second.code, 0, second.stderr);
      const sent = srv.requests.slice(before).map((r) => r.body);
      // only the six requests the failed run never got answered: round 1 and the
      // Researcher's and the Librarian's rounds replay from the cache
      assert.equal(sent.length, 6, JSON.stringify(sent.map((b) => b.messages)).slice(0, 2000));
      assert.equal(sent.filter(plannerRoundOne).length, 0);
      // the first is the Planner's round 2, after the replayed Researcher's answer
      assert.match(JSON.stringify(sent[0]!.messages), /Use bread flour: 12-14% protein/);
      // the rerun's agent is told its own job
      assert.match(
        JSON.stringify(sent[0]!.messages),
        /with path [^"]*\/rerun-2_[0-9a-f]{32}\.chat and/,
      );
      const out = JSON.parse(second.stdout);
      assert.match(out.answer, /^1\. Bake the crusty loaf first/);
      assert.equal(out.job, `Planner/ask/${failed.replace(/^Default_/, "rerun-2_")}`);
      // the Planner's own rounds (1 replayed, 2–5 live); the whole run, every inference once
      assert.equal(out.usage.tt, tokens(0, 1) + tokens(5, 6) + tokens(7, 9) + tokens(10, 11));
      assert.equal(out.total_usage.tt, tokens(0, 11));
      // the failed job is kept, its evidence its own; a chat naming both runs counts it once
      const both = join(t.path, "both.chat");
      writeFileSync(
        both,
        `user:\n\nPlan a spelt loaf\n\nmeta: job=Planner/ask/${failed}\n\nmeta: job=${out.job}\n`,
      );
      const prov = await runScout(["llm", "prov", "--json", both], { env, cwd: t.path });
      assert.equal(prov.code, 0, prov.stderr);
      const nodes = JSON.parse(prov.stdout).nodes as {
        path: string;
        job: { status: string } | null;
        tokens: { subtree: { tt: number } };
      }[];
      const node = (p: string) => nodes.find((n) => n.path === p)!;
      assert.equal(node(both).tokens.subtree.tt, tokens(0, 11));
      assert.equal(node(join(jobs, failed)).job!.status, how === "failed" ? "error" : "aborted");
      assert.equal(node(join(jobs, failed)).tokens.subtree.tt, tokens(0, 5));
      assert.equal(node(join(jobs, out.job.split("/").at(-1))).tokens.subtree.tt, tokens(0, 11));
    },
  );
}

Deno.test("R106-1: a --no-cache rerun of a failed Planner job asks everything again", async () => {
  await using t = await tempDir();
  const { srv, state, ask, failFirst } = await setup(t.path);
  await using _srv = srv;
  const failed = await failFirst();
  state.served = 0;
  state.script = SCRIPT;
  const before = srv.requests.length;
  const second = await ask("--no-cache");
  assert.equal(second.code, 0, second.stderr);
  const sent = srv.requests.slice(before).map((r) => r.body);
  assert.equal(sent.length, SCRIPT.length);
  assert.ok(plannerRoundOne(sent[0]!));
  const out = JSON.parse(second.stdout);
  assert.equal(out.job, `Planner/ask/${failed.replace(/^Default_/, "rerun-2_")}`);
  assert.equal(out.total_usage.tt, tokens(0, 11));
});
