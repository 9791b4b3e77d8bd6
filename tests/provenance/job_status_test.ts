/**
 * A job whose `.info` status is not `done` (R87-4): a failed job (status
 * `error`, no result) and a failed delegation show their status in the
 * tree and the flat views (` [error]`), the DOT draws a failed job with a
 * red border, and the page's node data carries the status and the `.info`
 * message's first line; the JSON document is unchanged (its `job.status`
 * already says it). Real job directories in a temp dir, real `dot`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostname } from "node:os";
import { runMain } from "../support/cli.ts";
import { assertRenders, entry, mkJob, rc, tmp, tok, write } from "./support.ts";

const OK = "Boss/ask/Default_0k0k0k0k00112233445566778899aabb.chat";
const BAD = "Boss/ask/Default_bad0bad000112233445566778899aabb.chat";
const DELEGATED = "Worker/ask/Default_de1e9a7e00112233445566778899aabb.chat";

/** A store with a done job, a failed one and a failed delegated job; `s.chat` names all three. */
function store(dir: string): string {
  const jobs = join(dir, "store");
  const info = (workflow: string) => ({ workflow, task_name: "ask", type: "chat" });
  const log = (id: string) => ({
    "agent.chat": `user: go\n\nmeta: ${tok(id, 10, 1, 11)}\n\nassistant: ok\n`,
  });
  mkJob(join(jobs, OK), null, log("ok"), info("Boss"));
  const failed = {
    status: "error",
    messages: ["Starting", "RuntimeError: the model\u001b[2J refused\n  at line two"],
  };
  mkJob(join(jobs, BAD), null, log("bad"), { ...info("Boss"), ...failed }, null);
  mkJob(join(jobs, DELEGATED), null, log("del"), {
    ...info("Worker"),
    status: "error",
    messages: ["ProviderError: 500"],
  }, null);
  write(
    join(dir, "s.chat"),
    rc({ c1: [entry(tok("w1", 3, 1, 4)), entry(`job=${DELEGATED}`)] }, [
      { role: "meta", content: `job=${OK}` },
      { role: "meta", content: `job=${BAD}` },
    ]),
  );
  return jobs;
}

async function prov(dir: string, ...args: string[]): Promise<string> {
  const r = await runMain(["llm", "prov", "s.chat", "-J", join(dir, "store"), ...args], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

Deno.test("R87-4: a failed job and a failed delegation show [error] in the tree and the flow; a done job shows nothing", async () => {
  await using d = await tmp();
  store(d.path);
  const tree = await prov(d.path);
  assert.match(tree, / Boss\/ask 0k0k0k0k\n/);
  assert.match(tree, / Boss\/ask bad0bad0 \[error\]\n/);
  assert.match(tree, / delegated-job Worker\/ask de1e9a7e \[error\]\n/);
  assert.ok(!tree.includes("\u001b"), "no terminal escape");
  const flow = await prov(d.path, "--flow");
  assert.match(flow, / Job {3}Boss\/ask bad0bad0 \[error\] +\S+ bad0bad0\n/);
  assert.match(flow, / Job {3}Worker\/ask de1e9a7e \[error\] /);
  assert.match(flow, / Job {3}Boss\/ask 0k0k0k0k {2}/);
});

Deno.test("R87-4: the DOT draws failed jobs with a red border and [error]; Graphviz renders it", async () => {
  await using d = await tmp();
  store(d.path);
  const dot = await prov(d.path, "--dot", "-");
  const line = (label: string) => dot.split("\n").find((l) => l.includes(label))!;
  const bad = line("Boss/ask bad0bad0");
  assert.match(bad, /label="Job\\nBoss\/ask bad0bad0 \[error\]\\n/);
  assert.match(bad, /color="#c62828"/);
  assert.match(line("Worker/ask de1e9a7e"), /color="#c62828"/);
  assert.doesNotMatch(line("Boss/ask 0k0k0k0k"), /#c62828|\[error\]/);
  assertRenders(dot);
});

Deno.test("R87-4: the page's data gives a job its status and the .info message's first line, escaped; the JSON is unchanged", async () => {
  await using d = await tmp();
  store(d.path);
  await prov(d.path, "--html", "p.html");
  const html = await Deno.readTextFile(join(d.path, "p.html"));
  const data = JSON.parse(
    /<script type="application\/json" id="prov-data">(.*?)<\/script>/s.exec(html)![1]!,
  );
  type PageNode = { label: string; status?: string; error?: string };
  const byLabel = (l: string) => data.nodes.find((n: PageNode) => n.label.startsWith(l))!;
  assert.equal(byLabel("Boss/ask bad0bad0").status, "error");
  assert.equal(byLabel("Boss/ask bad0bad0").error, "RuntimeError: the model\\u001b[2J refused");
  assert.equal(byLabel("Worker/ask de1e9a7e").error, "ProviderError: 500");
  assert.equal(byLabel("Boss/ask 0k0k0k0k").status, "done");
  assert.equal(byLabel("Boss/ask 0k0k0k0k").error, undefined);
  assert.match(html, /status: /, "the page script shows the status");

  const doc = JSON.parse(await prov(d.path, "--json"));
  const bad = doc.nodes.find((n: { label: string }) => n.label === "Boss/ask bad0bad0");
  assert.ok(bad, "the JSON label has no [error]");
  assert.deepEqual(Object.keys(bad.job), ["workflow", "task", "type", "status", "shortId"]);
  assert.equal(bad.job.status, "error");
});

/** The pid of a process that ran and is gone. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

Deno.test("R106-3b: a job whose .info says start but whose process is gone shows [stale] in the tree, the flow and the JSON, as workflow info does", async () => {
  await using d = await tmp();
  const jobs = join(d.path, "store");
  const job = "Planner/ask/Default_37865fa600112233445566778899aabb.chat";
  mkJob(join(jobs, job), null, { "agent.chat": `user: go\n\nmeta: ${tok("p", 10, 1, 11)}\n` }, {
    workflow: "Planner",
    task_name: "ask",
    type: "chat",
    status: "start",
    pid: await deadPid(),
    pid_hostname: hostname(),
  }, null);
  write(join(d.path, "s.chat"), `user: hi\n\nmeta: job=${job}\n`);
  const env = { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" };
  const info = await runMain(["workflow", "info", join(jobs, job), "--json"], { env });
  assert.equal(JSON.parse(info.stdout).status, "stale", info.stderr);
  const tree = await prov(d.path);
  assert.match(tree, / Planner\/ask 37865fa6 \[stale\]\n/);
  assert.ok(!tree.includes("[start]"), tree);
  assert.match(await prov(d.path, "--flow"), / Job {3}Planner\/ask 37865fa6 \[stale\] /);
  const doc = JSON.parse(await prov(d.path, "--json"));
  const node = doc.nodes.find((n: { label: string }) => n.label === "Planner/ask 37865fa6");
  assert.equal(node.job.status, "stale");
});
