/**
 * A chat task interrupted while its agent delegates (R109-2): `workflow task`
 * (serial, and the worker of `--deploy local`) leaves the same evidence as
 * `agent ask` does — the job `aborted`, its `log/agent.chat` with the call
 * and its interrupted output, the specialist's log `incomplete`, and
 * `llm prov` of the job showing the call. Real processes from source, a real
 * SIGTERM, the loopback provider; the specialist's reply is held until the
 * test ends.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { askJob, routeWorkflowText, sigtermOnceDelegated } from "../support/route_workflow.ts";
import { put } from "../support/files.ts";

/** The one job of Boss's route workflow (its path without `.info`). */
const bossJob = (home: string) => askJob(home, "Boss");

/**
 * Boss (a chat task on the task route, `socialize: true`) asks Worker, whose
 * reply never comes; `args(boss)` runs with the command in a process group
 * of its own, gets SIGTERM once Worker's request is in, and its end is returned.
 */
async function interruptedDelegation(dir: string, args: (boss: string) => string[]) {
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  await using srv = await startProviderServer({
    fallback: (r) => {
      const msgs = r.body.messages as { role: string; content: string }[];
      if (/You are Worker/.test(msgs[0]!.content)) return { text: "late", until: held };
      return {
        toolCalls: [{
          name: "ask",
          id: "call_w1",
          arguments: { agent: "Worker", prompt: "Compute the answer" },
        }],
        usage: { pt: 11, ct: 7 },
      };
    },
  });
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  const boss = join(home, "Agent/Boss");
  put(boss, "start_chat", "system:\n\nYou are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(boss, "workflow.ts", routeWorkflowText("Boss", boss));
  put(home, "Agent/Worker/start_chat", "system:\n\nYou are Worker\n\nendpoint: ep\n");
  writeFileSync(join(dir, "q2.chat"), "user:\n\nDelegate this\n");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" };
  const child = spawnScout(args(boss), { cwd: dir, env });
  try {
    const out = await sigtermOnceDelegated(child, () => srv.requests.length);
    return { code: out.code, stderr: new TextDecoder().decode(out.stderr), home, env };
  } finally {
    release(); // the server can close
  }
}

/** What the aborted job keeps: its info, the call and its interrupted output, Worker's log. */
async function assertEvidence(home: string, env: Record<string, string>, dir: string) {
  const job = bossJob(home);
  const info = JSON.parse(readFileSync(`${job}.info`, "utf8"));
  assert.equal(info.status, "aborted", JSON.stringify(info));
  assert.deepEqual(info.messages, ["Aborted: interrupted by SIGTERM"]);
  const log = readFileSync(join(`${job}.files`, "log/agent.chat"), "utf8");
  assert.match(log, /^function_call: \{"name":"ask",[^\n]*"id":"call_w1"\}$/m, log);
  const output = log.split("\n").find((l) => l.startsWith("function_call_output: "));
  assert.ok(output !== undefined, log);
  assert.match(output, /call_w1/);
  assert.match(output, /Tool call interrupted/);
  const worker = readFileSync(join(`${job}.files`, "log/society/Worker/_oneshot-1.chat"), "utf8");
  assert.match(worker, /^meta: incomplete=true/m, worker);
  const prov = await runScout(["llm", "prov", job, "--tools", "--json"], { env, cwd: dir });
  assert.equal(prov.code, 0, prov.stderr);
  const report = JSON.parse(prov.stdout);
  assert.deepEqual(
    report.calls.map((c: { callId: string }) => c.callId),
    ["call_w1"],
    prov.stdout,
  );
}

Deno.test("agent ask: SIGTERM while Boss delegates keeps the call, its interrupted output and Worker's log", async () => {
  await using d = await tempDir();
  const r = await interruptedDelegation(d.path, () => [
    "agent",
    "ask",
    "Boss",
    "--no-cache",
    "-o",
    "x.chat",
    "Delegate this",
  ]);
  assert.equal(r.code, 143, r.stderr);
  await assertEvidence(r.home, r.env, d.path);
});

for (const deploy of [[], ["--deploy", "local"]]) {
  const how = deploy.length === 0 ? "serial" : "--deploy local";
  Deno.test(`workflow task (${how}): SIGTERM while a chat task delegates leaves the evidence agent ask leaves (R109-2)`, async () => {
    await using d = await tempDir();
    const r = await interruptedDelegation(d.path, (boss) => [
      "workflow",
      "task",
      boss,
      "ask",
      "--chat",
      "q2.chat",
      ...deploy,
    ]);
    assert.equal(r.code, 143, r.stderr);
    assert.match(r.stderr, /^scout-ai: Terminated \(job "[^"]+" recorded as aborted\)\n$/);
    await assertEvidence(r.home, r.env, d.path);
  });
}
