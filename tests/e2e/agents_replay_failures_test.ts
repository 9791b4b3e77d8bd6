/**
 * Offline replay of multi-agent runs whose provider failed (issue 11 item 7,
 * R121-1/-2/-5), end to end through the CLI in real subprocesses: a Planner
 * asks a specialist whose provider call fails for good (an HTTP 400, a 500
 * outlasting the retries) or is retried once (a 429, then the answer). Each
 * run is recorded once against the loopback provider — as a chat task
 * (`workflow task`, the specialist's notes in the job's `.info`) and as
 * `agent ask -o` — then replayed `--offline` with the provider stopped from a
 * fresh tree holding only the inputs and the recorded cache: every file and
 * `llm prov --json` must be byte-identical. Online, a recorded failure is
 * never replayed: the provider is asked again, and an answer replaces it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type CliResult, runScout, tempDir } from "../support/cli.ts";
import {
  type RecordedRequest,
  type ScriptStep,
  startProviderServer,
} from "../support/provider_server.ts";
import {
  cacheEntries,
  describeDiff,
  diffTrees,
  listTree,
  prepareReplay,
} from "../support/replay.ts";

const START: Record<string, string> = {
  Planner: "system:\n\nYou are the Planner. Ask the Oven.\n\nsocialize: true\n",
  Oven: "system:\n\nYou are the Oven.\n",
};

const BAKERY_WORKFLOW = `export default (api) =>
  api.workflow("Bakery", {
    tasks: { ...api.chatTask("plan", async ({ agent, chat }) => await agent("Planner", { chat: chat() })) },
  });
`;

const QUESTION = "Is the oven ready?";

/** How the Oven's provider calls go. */
type Fault = "400" | "500" | "429" | "none";

type Body = { messages: { role: string; content?: unknown }[] };

/** The scripted model: the Planner asks the Oven once, then answers; the Oven as `fault.now` says. */
function router(fault: { now: Fault; ovenCalls: number }): (req: RecordedRequest) => ScriptStep {
  return (req) => {
    const msgs = (req.body as Body).messages;
    const sys = String(msgs.find((m) => m.role === "system")?.content ?? "");
    const tools = msgs.filter((m) => m.role === "tool").length;
    if (sys.includes("the Planner")) {
      if (tools === 0) {
        const args = { agent: "Oven", prompt: "Are you hot?" };
        return { toolCalls: [{ name: "ask", id: "call_o1", arguments: args }], usage: { pt: 50 } };
      }
      return { text: "The oven is handled.", usage: { pt: 80, ct: 5 } };
    }
    if (!sys.includes("the Oven")) return { status: 500, message: "Unscripted request" };
    fault.ovenCalls++;
    if (fault.now === "400") return { status: 400, message: "bad" };
    if (fault.now === "500") return { status: 500, message: "down", retryAfter: 0 };
    if (fault.now === "429" && fault.ovenCalls === 1) {
      return { status: 429, message: "try later", retryAfter: 0 };
    }
    return { text: "Hot.", usage: { pt: 20, ct: 2 } };
  };
}

/** The run's inputs: agents, the workflow, the endpoint file. */
async function seed(root: string, url: string): Promise<void> {
  const home = join(root, "home");
  for (const [name, text] of Object.entries(START)) {
    await Deno.mkdir(join(home, "Agent", name), { recursive: true });
    await Deno.writeTextFile(join(home, "Agent", name, "start_chat"), text);
  }
  await Deno.mkdir(join(home, "workflows", "Bakery"), { recursive: true });
  await Deno.writeTextFile(join(home, "workflows", "Bakery", "workflow.js"), BAKERY_WORKFLOW);
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${url}\nmodel: scripted\nkey: loopback\n`,
  );
}

/** Inputs a replay starts from (relative to the run directory). */
const INPUTS = ["home/Agent", "home/workflows", "home/etc", "home/var/cache"];

const env = (root: string, offline: boolean): Record<string, string> => ({
  SCOUT_HOME: join(root, "home"),
  ASK_ENDPOINT: "loop",
  ...(offline ? { SCOUT_OFFLINE: "1" } : {}),
});

/** The chat task (its job's path on stdout). */
function chatTask(root: string, offline: boolean, cwd = root): Promise<CliResult> {
  const args = ["workflow", "task", "Bakery", "plan", "--chat", `user:\n\n${QUESTION}\n`];
  return runScout([...args, "--print-path"], { env: env(root, offline), cwd });
}

async function session(root: string, offline: boolean): Promise<Record<string, CliResult>> {
  const task = await chatTask(root, offline);
  const chat = join(root, "plan.chat");
  const agent = await runScout(
    [
      "agent",
      "ask",
      "Planner",
      "-c",
      chat,
      "-o",
      chat,
      ...(offline ? ["--offline"] : []),
      QUESTION,
    ],
    { env: env(root, offline), cwd: root },
  );
  const run = (args: string[]) => runScout(args, { env: env(root, offline), cwd: root });
  const provJob = await run(["llm", "prov", task.stdout.trim() || "missing", "--json"]);
  const provChat = await run(["llm", "prov", chat, "--json"]);
  return { task, agent, provJob, provChat };
}

/** Records a run with the Oven's `fault`, replays it offline and compares every file. */
async function recordAndReplay(
  fault: Fault,
): Promise<{ info: string; log: string; stderr: string; snapshots: string[] }> {
  await using dir = await tempDir("scout-replay-fault-");
  const root = join(dir.path, "run");
  const srv = await startProviderServer({ fallback: router({ now: fault, ovenCalls: 0 }) });
  await seed(root, srv.url);
  const rec = await session(root, false);
  for (const [k, r] of Object.entries(rec)) assert.equal(r.code, 0, `${k}: ${r.stderr}`);
  const requests = srv.requests.length;
  await srv.close(); // the provider is gone for the replay
  const job = rec.task!.stdout.trim();
  const info = await Deno.readTextFile(`${job}.info`);
  const logs = (await listTree(`${job}.files`)).filter((f) => f.startsWith("log/society/Oven/"));
  assert.equal(logs.length, 1, logs.join("\n"));
  const log = await Deno.readTextFile(join(`${job}.files`, logs[0]!));
  const recorded = await prepareReplay(root, INPUTS);

  const rep = await session(root, true);
  for (const [k, r] of Object.entries(rep)) assert.equal(r.code, 0, `${k}: ${r.stderr}`);
  for (const k of ["task", "agent", "provJob", "provChat"]) {
    assert.equal(rep[k]!.stdout, rec[k]!.stdout, `${k} stdout`);
  }
  const diff = await diffTrees(recorded, root);
  assert.equal(describeDiff(diff), "", "files that differ between the recording and the replay");
  assert.ok(diff.compared >= 10, `compared ${diff.compared} files`);
  assert.equal(srv.requests.length, requests);
  // a failure's snapshot is among the files compared
  const snapshots = await listTree(join(recorded, "home", "tmp", "ask")).catch(() => []);
  return { info, log, stderr: rep.agent!.stderr, snapshots };
}

Deno.test("a run whose specialist's provider answered HTTP 400 replays offline byte-identically", async () => {
  const { info, log, snapshots } = await recordAndReplay("400");
  assert.match(info, /agent Oven \(conversation _oneshot-1, asked by Planner\) failed: Provider/);
  assert.match(info, /\(snapshot: [^)]+\.chat\)/);
  assert.equal(snapshots.length, 3, snapshots.join("\n")); // .chat, .meta, .options.json
  assert.match(log, /incomplete=true reason=error/);
});

Deno.test("a run whose specialist's provider failed past the retries (HTTP 500) replays offline byte-identically", async () => {
  const { info, log, snapshots } = await recordAndReplay("500");
  assert.equal(snapshots.length, 3, snapshots.join("\n"));
  assert.match(info, /retrying in 0\.0 s \(attempt 4\)/);
  assert.match(info, /failed: Provider \\"openai\\" answered HTTP 500: down/);
  assert.match(log, /incomplete=true reason=error/);
});

Deno.test("a run whose specialist's call was retried (HTTP 429, then an answer) replays offline byte-identically, its retry notes too", async () => {
  const { info, log, stderr } = await recordAndReplay("429");
  assert.match(info, /answered HTTP 429: try later .*retrying in 0\.0 s \(attempt 2\)"/);
  assert.match(log, /Hot\./);
  // agent ask warns it as replayed (the .info, compared above, holds the note as recorded)
  assert.match(stderr, /retrying in 0\.0 s \(attempt 2\) \(replayed from the cache\)/);
});

Deno.test("online, a recorded failure is never replayed: the provider is asked again and its answer replaces it", async () => {
  await using dir = await tempDir("scout-replay-fault-online-");
  const root = join(dir.path, "run");
  const fault = { now: "400" as Fault, ovenCalls: 0 };
  const srv = await startProviderServer({ fallback: router(fault) });
  await seed(root, srv.url);
  const home = join(root, "home");
  const ask = () =>
    runScout(["agent", "ask", "Planner", QUESTION], { env: env(root, false), cwd: root });
  const first = await ask();
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /agent Oven .*failed: Provider "openai" answered HTTP 400: bad/);
  const failures = async () => {
    const out: string[] = [];
    for (const e of await cacheEntries(home)) {
      if ((await Deno.readTextFile(join(home, e))).includes(`"failure"`)) out.push(e);
    }
    return out;
  };
  const [entry, ...more] = await failures();
  assert.ok(entry !== undefined && more.length === 0, "one failure entry: the Oven's");
  assert.equal(fault.ovenCalls, 1);
  // still failing: asked again, not replayed (a replay would not reach the provider)
  const again = await ask();
  assert.equal(again.code, 0, again.stderr);
  assert.equal(fault.ovenCalls, 2);
  assert.deepEqual(await failures(), [entry]);
  fault.now = "none";
  const fixed = await ask();
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(fault.ovenCalls, 3);
  assert.doesNotMatch(fixed.stderr, /failed/);
  // the answer replaced the failure under the same key
  const stored = JSON.parse(await Deno.readTextFile(join(home, entry)));
  assert.equal(stored.failure, undefined);
  assert.equal(stored.items[0].text, "Hot.");
  assert.deepEqual(await failures(), []);
  await srv.close();
});

Deno.test("an offline miss of a request naming the working directory says so (a replay run elsewhere)", async () => {
  await using dir = await tempDir("scout-replay-cwd-");
  const root = join(dir.path, "run");
  const srv = await startProviderServer({ fallback: router({ now: "none", ovenCalls: 0 }) });
  await seed(root, srv.url);
  const rec = await chatTask(root, false);
  assert.equal(rec.code, 0, rec.stderr);
  await srv.close();
  await prepareReplay(root, INPUTS);
  const elsewhere = join(dir.path, "elsewhere");
  await Deno.mkdir(elsewhere);
  const rep = await chatTask(root, true, elsewhere);
  assert.equal(rep.code, 1);
  assert.match(rep.stderr, /Offline: no cached answer for endpoint "loop"/);
  assert.ok(
    rep.stderr.includes(`the request names the working directory "${elsewhere}"`),
    rep.stderr,
  );
  // from the recording's directory it replays
  const back = await chatTask(root, true);
  assert.equal(back.code, 0, back.stderr);
});
