/**
 * A chat task's agent logs are written as the run goes (R106-3): `agent ask`
 * killed by SIGKILL (the OOM killer: no handler, no `finally`) while a
 * round is held leaves the job's `log/agent.chat` and the specialist's
 * `log/society/…` chat with the meta records of the rounds paid for, and
 * `llm prov <job>` counts their tokens.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, homeIn, ROOT, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** The `<job>.chat` result path of the Planner's `ask` job under `home`. */
function plannerJob(home: string): string {
  const dir = join(home, "var/jobs/Planner/ask");
  const names = readdirSync(dir).filter((n) => n.endsWith(".info")).map((n) => n.slice(0, -5));
  assert.equal(names.length, 1, `one job in ${dir}: ${names.join(", ")}`);
  return join(dir, names[0]!);
}

/** Whether the Planner's job logs hold both paid rounds' meta records yet. */
function paidLogged(home: string): boolean {
  try {
    const files = `${plannerJob(home)}.files/log`;
    return /^meta: pt=61 ct=31 /m.test(readFileSync(join(files, "agent.chat"), "utf8")) &&
      /^meta: pt=43 ct=17 /m.test(
        readFileSync(join(files, "society/Researcher/facts.chat"), "utf8"),
      );
  } catch {
    return false; // not written yet
  }
}

Deno.test("agent ask killed by SIGKILL mid-society keeps the logs of the inferences it paid for (R106-3)", async () => {
  await using d = await tempDir();
  const env = { ...homeIn(d.path), ASK_ENDPOINT: "loopback", NO_COLOR: "1" };
  const home = env.SCOUT_HOME;
  cpSync(join(ROOT, "fixtures/agents/Agent"), join(home, "Agent"), { recursive: true });
  let release = () => {};
  const held = new Promise<void>((r) => release = r); // the Planner's round 2, held
  await using srv = await startProviderServer({
    script: [
      {
        toolCalls: [{
          name: "ask",
          id: "call_r1",
          arguments: { agent: "Researcher", conversation: "facts", prompt: "Which flour?" },
        }],
        usage: { pt: 61, ct: 31 },
      },
      { text: "Barley flour, with some wheat for gluten.", usage: { pt: 43, ct: 17 } },
      { text: "never sent", until: held },
    ],
  });
  mkdirSync(join(home, "etc/AI"), { recursive: true });
  writeFileSync(
    join(home, "etc/AI/loopback.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: scripted-bakery\nkey: loopback-needs-no-key\n`,
  );
  // the command leads a process group of its own, as a cluster's job does
  const child = spawn(DENO, [
    ...SCOUT_SOURCE_ARGS,
    "agent",
    "ask",
    "Planner",
    "-o",
    join(d.path, "barley.chat"),
    "Plan a barley bread",
  ], { cwd: d.path, env, stdio: "ignore", detached: true });
  const exited = new Promise((r) => child.on("exit", r));
  try {
    const t0 = Date.now();
    while (srv.requests.length < 3) {
      if (Date.now() - t0 > 60_000) throw new Error("the held request never arrived");
      await new Promise((r) => setTimeout(r, 50));
    }
    // the checkpoints are written behind each paid inference, on the I/O pool: with the run
    // held, they land while it waits (a loaded machine may send the next request first)
    while (!paidLogged(home)) {
      if (Date.now() - t0 > 60_000) break; // the assertions below say what is missing
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    process.kill(-child.pid!, "SIGKILL");
    await exited;
    release(); // the server can close: its client is gone
  }
  const job = plannerJob(home);
  const log = join(`${job}.files`, "log/agent.chat");
  assert.ok(existsSync(log), `${log} written before the kill`);
  const text = readFileSync(log, "utf8");
  assert.match(text, /^meta: pt=61 ct=31 /m, text);
  const researcher = join(`${job}.files`, "log/society/Researcher/facts.chat");
  assert.match(readFileSync(researcher, "utf8"), /^meta: pt=43 ct=17 /m);
  const prov = await runScout(["llm", "prov", job, "--json"], { env, cwd: d.path });
  assert.equal(prov.code, 0, prov.stderr);
  const totals = JSON.parse(prov.stdout).totals;
  assert.equal(totals.deduplicated_total.tt, 61 + 31 + 43 + 17, prov.stdout);
});
