/**
 * Offline replay of a multi-agent run (issue 11 item 7), end to end through
 * the CLI in real subprocesses: a Planner socializing with a Researcher (one
 * conversation, continued) and a Critic (one-shot), asked in parallel; the
 * Researcher uses a workflow tool (a job) and has its own society (a
 * Checker); the whole thing run as a chat task (`workflow task`, society
 * logs under the job) and as `agent ask -o`. Recorded once against the
 * loopback provider, then replayed `--offline` with the provider stopped,
 * from a fresh tree holding only the inputs and the recorded cache: every
 * file — chats, society logs, job files, the cache — and `llm prov --json`
 * must be byte-identical. With one cache entry removed the replay fails with
 * `not_cached` naming that digest and writes no answer.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { type CliResult, runScout, tempDir } from "../support/cli.ts";
import { replayCheck } from "../support/replay_check.ts";
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
  Planner:
    "system:\n\nYou are the Planner. Ask the Researcher and the Critic.\n\nsocialize: true\n",
  Researcher:
    "system:\n\nYou are the Researcher. Use lookup; ask the Checker.\n\nsocialize: true\n",
  Critic: "system:\n\nYou are the Critic.\n",
  Checker: "system:\n\nYou are the Checker.\n",
};

const RESEARCHER_WORKFLOW = `export default (api) =>
  api.workflow("Researcher", {
    tasks: {
      lookup: {
        type: "string",
        description: "Look up a baking fact",
        inputs: { topic: api.input.string({ required: true, description: "topic" }) },
        run: ({ topic }) => "Fact about " + topic + ": 12-14% protein.",
      },
    },
  });
`;

const BAKERY_WORKFLOW = `export default (api) =>
  api.workflow("Bakery", {
    tasks: { ...api.chatTask("plan", async ({ agent, chat }) => await agent("Planner", { chat: chat() })) },
  });
`;

const QUESTION = "Plan a loaf and a sponge";

type Body = { messages: { role: string; content?: unknown }[] };

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  name,
  id,
  arguments: args,
});

/**
 * The scripted model, by who asks (the system prompt) and how far the
 * conversation got: the same answers whatever order parallel specialists
 * reach the server in.
 */
function route(req: RecordedRequest): ScriptStep {
  const msgs = (req.body as Body).messages;
  const sys = String(msgs.find((m) => m.role === "system")?.content ?? "");
  const tools = msgs.filter((m) => m.role === "tool").length;
  const users = msgs.filter((m) => m.role === "user").length;
  if (sys.includes("the Planner")) {
    if (tools === 0) {
      return {
        toolCalls: [
          call("call_r1", "ask", {
            agent: "Researcher",
            conversation: "facts",
            prompt: "Which flour for the loaf?",
          }),
          call("call_c1", "ask", { agent: "Critic", prompt: "Risks of baking both?" }),
        ],
        usage: { pt: 100, ct: 20 },
      };
    }
    if (tools === 2) {
      return {
        toolCalls: [call("call_r2", "ask", {
          agent: "Researcher",
          conversation: "facts",
          prompt: "And for the sponge?",
        })],
        usage: { pt: 150, ct: 15 },
      };
    }
    return {
      text: "1. Loaf with bread flour. 2. Sponge with cake flour.",
      usage: { pt: 200, ct: 30 },
    };
  }
  if (sys.includes("the Researcher")) {
    if (users === 1 && tools === 0) {
      return {
        toolCalls: [
          call("call_l1", "lookup", { topic: "bread flour" }),
          call("call_k1", "ask", { agent: "Checker", prompt: "Is bread flour right?" }),
        ],
        usage: { pt: 60, ct: 9 },
        delayMs: 30,
      };
    }
    if (users === 1) return { text: "Bread flour, checked.", usage: { pt: 80, ct: 6 } };
    return { text: "Cake flour.", usage: { pt: 90, ct: 4 } };
  }
  if (sys.includes("the Checker")) return { text: "Yes.", usage: { pt: 20, ct: 2 } };
  if (sys.includes("the Critic")) {
    return { text: "One oven: loaf first.", usage: { pt: 40, ct: 8 } };
  }
  return { status: 500, message: `Unscripted request: ${sys.slice(0, 60)}` };
}

/** The run's inputs: agents, workflows, the endpoint file. */
async function seed(root: string, url: string): Promise<void> {
  const home = join(root, "home");
  for (const [name, text] of Object.entries(START)) {
    await Deno.mkdir(join(home, "Agent", name), { recursive: true });
    await Deno.writeTextFile(join(home, "Agent", name, "start_chat"), text);
  }
  await Deno.writeTextFile(join(home, "Agent", "Researcher", "workflow.js"), RESEARCHER_WORKFLOW);
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

interface Session {
  task: CliResult;
  agent: CliResult;
  provJob: CliResult;
  provChat: CliResult;
}

async function session(root: string, offline: boolean): Promise<Session> {
  const env: Record<string, string> = {
    SCOUT_HOME: join(root, "home"),
    ASK_ENDPOINT: "loop",
    ...(offline ? { SCOUT_OFFLINE: "1" } : {}),
  };
  const run = (args: string[]) => runScout(args, { env, cwd: root });
  const task = await run([
    "workflow",
    "task",
    "Bakery",
    "plan",
    "--chat",
    `user:\n\n${QUESTION}\n`,
    "--print-path",
  ]);
  const chat = join(root, "plan.chat");
  const agent = await run([
    "agent",
    "ask",
    "Planner",
    "-c",
    chat,
    "-o",
    chat,
    ...(offline ? ["--offline"] : []),
    QUESTION,
  ]);
  const job = task.stdout.trim();
  const provJob = await run(["llm", "prov", job || "missing", "--json"]);
  const provChat = await run(["llm", "prov", chat, "--json"]);
  return { task, agent, provJob, provChat };
}

Deno.test("a multi-agent run replays offline byte-identically: chats, society logs, job files, llm prov --json", async () => {
  await using dir = await tempDir("scout-replay-");
  const root = join(dir.path, "run");
  const srv = await startProviderServer({ fallback: route });
  await seed(root, srv.url);
  const rec = await session(root, false);
  for (const [k, r] of Object.entries(rec)) assert.equal(r.code, 0, `${k}: ${r.stderr}`);
  const requests = srv.requests.length;
  await srv.close(); // the provider is gone for the replay
  // the recording has what the replay must reproduce
  const job = rec.task.stdout.trim();
  const logs = (await listTree(`${job}.files`)).filter((f) => f.startsWith("log"));
  assert.deepEqual(logs, [
    "log/agent.chat",
    "log/society/Critic/_oneshot-1.chat",
    "log/society/Researcher/facts.chat",
    "log/society/Researcher/facts/society/Checker/_oneshot-1.chat",
  ]);
  // the chat task's 8 inferences; agent ask shares the specialists' (same requests), not the Planner's
  assert.equal(requests, 8 + 3);
  const recorded = await prepareReplay(root, INPUTS);
  assert.ok(!existsSync(job)); // the replay starts without the job, its logs and the chat

  const rep = await session(root, true);
  for (const [k, r] of Object.entries(rep)) assert.equal(r.code, 0, `${k}: ${r.stderr}`);
  for (const k of ["task", "agent", "provJob", "provChat"] as const) {
    assert.equal(rep[k].stdout, rec[k].stdout, `${k} stdout`);
  }
  const diff = await diffTrees(recorded, root);
  assert.equal(describeDiff(diff), "", "files that differ between the recording and the replay");
  assert.ok(diff.compared >= 20, `compared ${diff.compared} files`);
  assert.equal(srv.requests.length, requests);
});

Deno.test("a replay missing one cache entry fails with not_cached naming its digest and writes no answer", async () => {
  await using dir = await tempDir("scout-replay-miss-");
  const root = join(dir.path, "run");
  const srv = await startProviderServer({ fallback: route });
  await seed(root, srv.url);
  const env = { SCOUT_HOME: join(root, "home"), ASK_ENDPOINT: "loop" };
  const chat = join(root, "plan.chat");
  const ask = (extra: string[]) =>
    runScout(["agent", "ask", "Planner", "-c", chat, "-o", chat, ...extra, QUESTION], {
      env,
      cwd: root,
    });
  const first = await ask([]);
  assert.equal(first.code, 0, first.stderr);
  await srv.close();
  await prepareReplay(root, INPUTS);
  // the Researcher's second round: its first round (a lookup job and the nested Checker) replays,
  // then the miss passes up through its ask and the Planner's
  const home = join(root, "home");
  const entries = await cacheEntries(home);
  assert.equal(entries.length, 8);
  let missing = "";
  for (const e of entries) {
    if ((await Deno.readTextFile(join(home, e))).includes("Bread flour, checked.")) missing = e;
  }
  assert.notEqual(missing, "");
  await Deno.remove(join(home, missing));
  const digest = basename(missing, ".json");
  const miss = await ask(["--offline"]);
  assert.equal(miss.code, 1);
  assert.match(miss.stderr, /Offline: no cached answer for endpoint "loop"/);
  assert.ok(miss.stderr.includes(`request digest ${digest}`), miss.stderr);
  assert.equal(miss.stdout, "");
  // what was saved is not an answer: no assistant text, no tool output made of the miss
  const saved = existsSync(chat) ? await Deno.readTextFile(chat) : "";
  assert.doesNotMatch(saved, /assistant:/);
  assert.doesNotMatch(saved, /not_cached|no cached answer/);
  assert.doesNotMatch(saved, /Loaf with bread flour/);
  // nor a specialist's messages (the miss passed up through the Researcher's ask)
  assert.doesNotMatch(saved, /Checker|Is bread flour right|lookup/);
  assert.match(saved, /Plan a loaf and a sponge/);
  // the same through a chat task: the job fails, no result and no logs are written
  const task = await runScout(
    ["workflow", "task", "Bakery", "plan", "--chat", `user:\n\n${QUESTION}\n`, "--print-path"],
    { env: { ...env, SCOUT_OFFLINE: "1" }, cwd: root },
  );
  assert.equal(task.code, 1);
  assert.match(task.stderr, /Offline: no cached answer/);
  const jobs = await listTree(join(home, "var", "jobs")).catch(() => [] as string[]);
  assert.ok(
    !jobs.some((f) => f.startsWith("Bakery/plan/") && f.endsWith(".chat") && !f.includes(".files")),
    jobs.join("\n"),
  );
  assert.ok(!jobs.some((f) => f.includes("log/agent.chat")), jobs.join("\n"));
});

Deno.test("tools/deno task replay-check holds on the example society (fixtures/agents)", async () => {
  await using dir = await tempDir("scout-replay-check-");
  const r = await replayCheck(dir.path);
  assert.ok(r.ok, r.lines.join("\n"));
  assert.match(r.lines.join("\n"), /replayed offline, provider stopped: 0 provider requests/);
  assert.match(r.lines.join("\n"), /compared \d+ files: all byte-identical/);
  const each = /each of the (\d+) cache entries removed in turn: (\d+) replays fail/.exec(
    r.lines.join("\n"),
  );
  assert.ok(each && Number(each[1]) > 0 && each[1] === each[2], r.lines.join("\n"));
});
