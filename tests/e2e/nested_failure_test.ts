/**
 * A nested ask that is retried or fails leaves a trace for the user (R106-2):
 * the example society (fixtures/agents: Planner → Researcher → Librarian)
 * through the real CLI against the loopback provider, the Librarian's
 * requests answering HTTP 500 until its retries are used up.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { parseMeta } from "../../src/chat/meta.ts";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { type ScriptStep, startProviderServer } from "../support/provider_server.ts";

const SCRIPT: ScriptStep[] = JSON.parse(
  readFileSync(join(ROOT, "fixtures", "agents", "script.json"), "utf8"),
);
const FAIL: ScriptStep = { status: 500, retryAfter: 0, message: "the GPU is on fire" };

/** A home with the example's agents and an endpoint file naming the server. */
function society(dir: string, url: string): Record<string, string> {
  const home = join(dir, "home");
  cpSync(join(ROOT, "fixtures", "agents", "Agent"), join(home, "Agent"), { recursive: true });
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "loopback.yaml"),
    `backend: openai\nurl: ${url}\nmodel: scripted\nkey: loopback-needs-no-key\n`,
  );
  return { SCOUT_HOME: home, ASK_ENDPOINT: "loopback" };
}

Deno.test("R106-2: a nested specialist's retries and failure reach stderr, its log, its snapshot and the job's info", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    script: [
      FAIL, // the Planner's own first round, retried inside its chat-task job
      SCRIPT[0]!, // Planner → ask Researcher (facts)
      SCRIPT[1]!, // Researcher → lookup
      SCRIPT[2]!, // Researcher → ask Librarian
      FAIL,
      FAIL,
      FAIL,
      FAIL, // the Librarian: 1 + 3 retries, all 500
      SCRIPT[4]!, // the Researcher answers anyway
      { text: "1. Bake the loaf.", usage: { pt: 5, ct: 3 } }, // the Planner's answer
    ],
  });
  const env = society(dir.path, srv.url);
  const out = join(dir.path, "plan.chat");
  const r = await runScout(["agent", "ask", "Planner", "-o", out, "Plan a loaf"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.pending(), 0);
  const lines = r.stderr.trimEnd().split("\n");
  const job = /job (Planner\/ask\/\S+\.chat)\)/.exec(r.stderr)?.[1];
  assert.ok(job, r.stderr);
  // the Planner's own retried round, inside its job
  assert.ok(
    lines.some((l) =>
      l.startsWith(`scout-ai: warning: agent Planner (job ${job}): `) &&
      /the GPU is on fire.*; retrying in 0\.0 s \(attempt 2\)$/.test(l)
    ),
    r.stderr,
  );
  // the Librarian's three retries, naming it, its conversation, its caller and the job
  const who = `agent Librarian (conversation _oneshot-1, asked by Researcher, job ${job})`;
  for (const n of [2, 3, 4]) {
    assert.ok(
      lines.some((l) =>
        l.startsWith(`scout-ai: warning: ${who}: `) && l.endsWith(`(attempt ${n})`)
      ),
      `attempt ${n}:\n${r.stderr}`,
    );
  }
  // its failure, with the snapshot
  const failed = lines.find((l) => l.startsWith(`scout-ai: warning: ${who} failed: `));
  assert.ok(failed, r.stderr);
  assert.match(failed, /the GPU is on fire/);
  const snapshot = /\(snapshot: (\S+)\.chat\)/.exec(failed)?.[1];
  assert.ok(snapshot && existsSync(`${snapshot}.chat`), failed);
  // the snapshot says whose it is (and holds no key)
  const options = readFileSync(`${snapshot}.options.json`, "utf8");
  assert.deepEqual(JSON.parse(options).asked_by, {
    agent: "Librarian",
    conversation: "_oneshot-1",
    caller: "Researcher",
    job,
  });
  assert.doesNotMatch(options, /loopback-needs-no-key/);

  // the Librarian's society log ends with a record of the failure
  const jobPath = join(env.SCOUT_HOME!, "var", "jobs", job);
  const log = parse(readFileSync(
    join(`${jobPath}.files`, "log/society/Researcher/facts/society/Librarian/_oneshot-1.chat"),
    "utf8",
  ));
  const last = log.at(-1)!;
  assert.equal(last.role, "meta");
  const record = parseMeta(String(last.content));
  assert.equal(record.incomplete, "true");
  assert.equal(record.reason, "error");
  assert.match(String(record.error), /the GPU is on fire/);
  // the log is the user's, not a model's: yet no snapshot path (it changes every run)
  assert.doesNotMatch(String(record.error), /snapshot/);

  // the job's info lists the retries and the failure of its nested asks
  const info = JSON.parse(readFileSync(`${jobPath}.info`, "utf8"));
  const messages = info.messages as string[];
  assert.ok(messages.some((m) => m.startsWith("agent Planner: ") && m.endsWith("(attempt 2)")));
  const inJob = "agent Librarian (conversation _oneshot-1, asked by Researcher)";
  assert.equal(messages.filter((m) => m.startsWith(`${inJob}: `)).length, 3, messages.join("\n"));
  assert.ok(messages.some((m) => m.startsWith(`${inJob} failed: `) && m.includes(snapshot)));
  assert.equal(info.status, "done");
  // the record of the failure is no inference: provenance counts each paid one once
  const prov = await runScout(["llm", "prov", "--json", out], { env, cwd: dir.path });
  assert.equal(prov.code, 0, prov.stderr);
  assert.equal(JSON.parse(prov.stdout).nodes[0].tokens.subtree.tt, 496, prov.stdout);
});

Deno.test("R106-2: a top-level agent's retry warning is the one llm ask prints, once, unnamed", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    script: [FAIL, { text: "Flour Water Salt Yeast.", usage: { pt: 3, ct: 2 } }],
  });
  const env = society(dir.path, srv.url);
  const r = await runScout(["agent", "ask", "Librarian", "Which book?"], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Flour Water Salt Yeast.\n");
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0]!,
    /^scout-ai: warning: Provider .*the GPU is on fire.*; retrying in 0\.0 s \(attempt 2\)$/,
  );
});
