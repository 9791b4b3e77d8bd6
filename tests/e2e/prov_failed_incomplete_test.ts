/**
 * `llm prov` of a real multi-agent run (a chat task whose Planner asks an
 * Oven whose provider answers HTTP 400 for good), through the CLI in real
 * subprocesses, every view — tree, flow, JSON, DOT, a real Graphviz SVG,
 * Mermaid and the page:
 * - R127-2: the Oven's conversation, whose log ends with `meta:
 *   incomplete=true reason=error error=…`, is marked failed as a failed job
 *   is (`[error]`, a red border, `failure` in the JSON, the page's status);
 * - R127-5: a stale job (status `started`, its process gone) gets the red
 *   border too, and Mermaid styles failed nodes (`classDef failed`);
 * - R127-1: a run whose chat names a job that was removed says it is
 *   incomplete in every graph view (a DOT graph label and comment, the SVG,
 *   Mermaid's title, the page's header) and on stderr when only files or
 *   graphs are written, even with `--log 6`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostname } from "node:os";
import { type CliResult, runScout, tempDir } from "../support/cli.ts";
import {
  type RecordedRequest,
  type ScriptStep,
  startProviderServer,
} from "../support/provider_server.ts";

const WORKFLOW = `export default (api) =>
  api.workflow("Bakery", {
    tasks: { ...api.chatTask("plan", async ({ agent, chat }) => await agent("Planner", { chat: chat() })) },
  });
`;

type Body = { messages: { role: string; content?: unknown }[] };

/** The Planner asks the Oven once, then answers; the Oven's provider call fails (HTTP 400). */
function router(req: RecordedRequest): ScriptStep {
  const msgs = (req.body as Body).messages;
  const sys = String(msgs.find((m) => m.role === "system")?.content ?? "");
  if (!sys.includes("the Planner")) return { status: 400, message: "bad" };
  if (!msgs.some((m) => m.role === "tool")) {
    const args = { agent: "Oven", prompt: "Are you hot?" };
    return { toolCalls: [{ name: "ask", id: "call_o1", arguments: args }], usage: { pt: 50 } };
  }
  return { text: "The oven is handled.", usage: { pt: 80, ct: 5 } };
}

interface Run {
  dir: string;
  env: Record<string, string>;
  /** The jobs (paths relative to the job store) of the two questions asked. */
  jobs: string[];
}

/** Two chat tasks against the loopback provider; `plan.chat` names both jobs. */
async function record(dir: string): Promise<Run> {
  const home = join(dir, "home");
  const agents = {
    Planner: "system:\n\nYou are the Planner. Ask the Oven.\n\nsocialize: true\n",
    Oven: "system:\n\nYou are the Oven.\n",
  };
  for (const [name, text] of Object.entries(agents)) {
    await Deno.mkdir(join(home, "Agent", name), { recursive: true });
    await Deno.writeTextFile(join(home, "Agent", name, "start_chat"), text);
  }
  await Deno.mkdir(join(home, "workflows", "Bakery"), { recursive: true });
  await Deno.writeTextFile(join(home, "workflows", "Bakery", "workflow.js"), WORKFLOW);
  const srv = await startProviderServer({ fallback: router });
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: scripted\nkey: loopback\n`,
  );
  const env = { SCOUT_HOME: home, ASK_ENDPOINT: "loop" };
  const jobs: string[] = [];
  try {
    for (const q of ["Is the oven ready?", "Is the oven clean?"]) {
      const args = ["workflow", "task", "Bakery", "plan", "--chat", `user:\n\n${q}\n`];
      const r = await runScout([...args, "--print-path"], { env, cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      jobs.push(r.stdout.trim().slice(join(home, "var", "jobs").length + 1));
    }
  } finally {
    await srv.close();
  }
  const markers = jobs.map((j) => `meta: job=${j}\n\n`).join("");
  await Deno.writeTextFile(join(dir, "plan.chat"), `user:\n\nIs the oven ready?\n\n${markers}`);
  return { dir, env, jobs };
}

async function prov(run: Run, ...args: string[]): Promise<CliResult> {
  const r = await runScout(["llm", "prov", "plan.chat", ...args], { env: run.env, cwd: run.dir });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

const read = (run: Run, file: string) => Deno.readTextFile(join(run.dir, file));

/** The DOT node lines whose labels hold every one of `texts`. */
function dotNodes(dot: string, ...texts: string[]): string[] {
  const lines = dot.split("\n").filter((l) =>
    /^ {2}n\d+ \[/.test(l) && texts.every((t) => l.includes(t))
  );
  assert.ok(lines.length > 0, `no DOT node with ${texts.join(", ")}:\n${dot}`);
  return lines;
}

const RED = 'color="#c62828", penwidth=2';

Deno.test("R127-2: a chat whose provider call failed for good is marked [error] in the tree, flow, DOT, SVG, Mermaid, JSON and page", async () => {
  await using d = await tempDir("scout-prov-failed-");
  const run = await record(d.path);
  const tree = (await prov(run)).stdout;
  assert.match(tree, /chat Oven · _oneshot-1 \[error\]\n/, tree);
  assert.doesNotMatch(tree, /plan\.chat \[error\]/); // its last record is an answer
  const flow = (await prov(run, "--flow")).stdout;
  // two logs of one name: qualified by their jobs, the mark kept after the shortened label
  assert.equal(
    flow.match(/Chat {2}Oven · _oneshot-1 in Bakery\/p…[0-9a-f]+ \[error\] /g)?.length,
    2,
  );
  const dot = (await prov(run, "--dot", "-")).stdout;
  const ovens = dotNodes(dot, "Oven · _oneshot-1", "[error]\\n");
  assert.equal(ovens.length, 2);
  for (const line of ovens) assert.ok(line.includes(RED), dot);
  for (const line of dotNodes(dot, "Chat\\nplan.chat")) assert.ok(!line.includes("c62828"), dot);
  // the failed chat's tokens stay counted (none here: a 400 reports no usage)
  const json = JSON.parse((await prov(run, "--json")).stdout);
  const oven = json.nodes.filter((n: { path: string }) => n.path.endsWith("Oven/_oneshot-1.chat"));
  assert.equal(oven.length, 2);
  for (const n of oven) {
    assert.deepEqual(n.failure, {
      status: "error",
      reason: "error",
      error: 'Provider "openai" answered HTTP 400: bad',
    });
  }
  const healthy = json.nodes.filter((n: { kind: string; failure?: unknown }) =>
    n.kind === "chat" && n.failure === undefined
  );
  assert.ok(healthy.some((n: { label: string }) => n.label === "plan.chat"));
  assert.equal(json.totals.deduplicated_total.tt, 280);
  const mermaid = (await prov(run, "--mermaid")).stdout;
  const id = /^ {2}(n\d+)\("Chat: Oven · _oneshot-1 [^"]* #91;error#93;<br\/>/m.exec(mermaid)?.[1];
  assert.ok(id !== undefined, mermaid);
  assert.match(mermaid, /^ {2}classDef failed /m);
  assert.match(mermaid, new RegExp(`^ {2}class [n0-9,]*\\b${id}\\b[n0-9,]* failed;$`, "m"));
  await prov(run, "--plot", "g.svg");
  const svg = await read(run, "g.svg");
  const node = svg.split('<g id="node').find((g) => /_oneshot&#45;1 .*\[error\]/.test(g));
  assert.ok(node !== undefined && node.includes('stroke="#c62828"'), svg);
  await prov(run, "--html", "p.html");
  const page = await read(run, "p.html");
  const data = JSON.parse(/id="prov-data">(.*?)<\/script>/s.exec(page)![1]!);
  const listed = data.nodes.filter((n: { label: string }) => n.label.startsWith("Oven"));
  assert.equal(listed.length, 2);
  for (const n of listed) {
    assert.equal(n.status, "error");
    assert.equal(n.error, 'Provider "openai" answered HTTP 400: bad');
  }
});

Deno.test("R127-5: a stale job gets the failed jobs' red border; Mermaid styles failed nodes", async () => {
  await using d = await tempDir("scout-prov-stale-");
  const run = await record(d.path);
  // the second job's process was killed mid-run: status started, no result, its pid gone
  const job = join(run.env.SCOUT_HOME!, "var", "jobs", run.jobs[1]!);
  const gone = new Deno.Command("true").spawn();
  const { pid } = gone;
  await gone.status;
  const info = JSON.parse(await Deno.readTextFile(`${job}.info`));
  await Deno.writeTextFile(
    `${job}.info`,
    JSON.stringify({ ...info, status: "started", pid, pid_hostname: hostname() }),
  );
  await Deno.remove(job);
  const dot = (await prov(run, "--dot", "-")).stdout;
  const [stale, ...more] = dotNodes(dot, "[stale]");
  assert.ok(stale!.includes(RED) && more.length === 0, dot);
  const mermaid = (await prov(run, "--mermaid")).stdout;
  const id = /^ {2}(n\d+)\["Job: Bakery\/plan [0-9a-f]+ #91;stale#93;/m.exec(mermaid)?.[1];
  assert.ok(id !== undefined, mermaid);
  assert.match(mermaid, new RegExp(`^ {2}class [n0-9,]*\\b${id}\\b[n0-9,]* failed;$`, "m"));
});

Deno.test("R127-1: after a job is removed, every graph view says the provenance is incomplete, on stderr too with --log 6", async () => {
  await using d = await tempDir("scout-prov-incomplete-");
  const run = await record(d.path);
  const jobs = join(run.env.SCOUT_HOME!, "var", "jobs");
  for (const end of ["", ".info", ".files"]) {
    await Deno.remove(join(jobs, run.jobs[1]!) + end, { recursive: true });
  }
  const LINE = "(incomplete: 1 unresolved reference — see the warnings)";
  const tree = await prov(run, "--log", "6");
  assert.ok(tree.stdout.endsWith(LINE + "\n"), tree.stdout);
  const dot = await prov(run, "--dot", "-", "--log", "6");
  assert.match(dot.stdout, /^ {2}\/\/ incomplete: 1 unresolved reference — see the warnings$/m);
  assert.match(dot.stdout, /^ {2}graph \[label="incomplete: 1 unresolved reference/m);
  assert.ok(dot.stderr.includes(LINE), dot.stderr);
  const plot = await prov(run, "--plot", "g.svg", "--log", "6");
  assert.equal(plot.stdout, "");
  assert.equal(plot.stderr, `scout-ai: ${LINE}\n`);
  assert.match(await read(run, "g.svg"), /<text [^>]*>incomplete: 1 unresolved reference/);
  const mermaid = await prov(run, "--mermaid");
  assert.ok(
    mermaid.stdout.startsWith(
      '---\ntitle: "incomplete: 1 unresolved reference — see the warnings"\n---\nflowchart LR\n',
    ),
    mermaid.stdout,
  );
  const html = await prov(run, "--html", "p.html", "--log", "6");
  assert.equal(html.stderr, `scout-ai: ${LINE}\n`);
  const header = /<header>.*?<\/header>/s.exec(await read(run, "p.html"))![0];
  assert.match(header, /incomplete: 1 unresolved reference — see the warnings/);
  // with the warnings shown (--log 5), the line follows them once
  const shown = await prov(run, "--dot", "g.dot");
  assert.match(shown.stderr, /warning: Incomplete provenance at chat/);
  assert.equal(shown.stderr.split(LINE).length, 2, shown.stderr);
  // a complete run's views say nothing of the kind
  await Deno.writeTextFile(join(run.dir, "plan.chat"), `user:\n\nhi\n\nmeta: job=${run.jobs[0]}\n`);
  const whole = await prov(run, "--dot", "-");
  assert.doesNotMatch(whole.stdout + whole.stderr, /incomplete/);
});
