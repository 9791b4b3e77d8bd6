/**
 * A failed ask job and its `rerun-<n>_` rerun (R111-3): the short id drops
 * the port's rerun prefix (R87-1), so the two read alike — in the tree, the
 * flow (both ids `cefe35d2`) and the DOT (labels differing only by
 * `[error]`, byte-identical when both are done). The views mark such a rerun
 * ` rerun <n>`; a rerun with no sibling of its label keeps the label it
 * had, the JSON keeps its labels, `--long` its paths. Real job directories
 * in a temp dir, the real CLI, the real `dot`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { jobRerun, rerunMarks } from "../../src/provenance/labels.ts";
import type { JobSummary } from "../../src/provenance/types.ts";
import { runMain } from "../support/cli.ts";
import { ProvenanceDocument } from "./schema.ts";
import { assertRenders, mkJob, tmp, tok, write } from "./support.ts";

const DIGEST = "cefe35d22d3230689b5106496c2f2c0e";
const FIRST = `Planner/ask/Default_${DIGEST}.chat`;
const RERUN = `Planner/ask/rerun-2_${DIGEST}.chat`;
const RERUN3 = `Planner/ask/rerun-3_${DIGEST}.chat`;

/** A store with the first run (`status` given) and its reruns; `<name>.chat` marks the given jobs. */
function store(dir: string, first: "error" | "done", chats: Record<string, string[]>): void {
  const info = { workflow: "Planner", task_name: "ask", type: "chat" };
  const log = (id: string, tt: number) => ({
    "agent.chat": `user: plan\n\nmeta: ${tok(id, tt - 1, 1, tt)}\n\nassistant: ok\n`,
  });
  const jobs = join(dir, "store");
  const result = first === "done" ? "done\n" : null; // a failed job has none
  mkJob(join(jobs, FIRST), null, log("first", 616), { ...info, status: first }, result);
  mkJob(join(jobs, RERUN), null, log("rerun", 1200), info);
  mkJob(join(jobs, RERUN3), null, log("rerun3", 30), info);
  for (const [name, refs] of Object.entries(chats)) {
    write(
      join(dir, `${name}.chat`),
      `user: plan\n\n${refs.map((r) => `meta: job=${r}\n\n`).join("")}assistant: ok\n`,
    );
  }
}

async function prov(dir: string, chat: string, ...args: string[]): Promise<string> {
  const r = await runMain(["llm", "prov", `${chat}.chat`, "-J", join(dir, "store"), ...args], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** The job lines of a text view. */
function jobLines(text: string, pattern: RegExp): string[] {
  return text.split("\n").filter((l) => pattern.test(l));
}

Deno.test("R111-3: a failed job and its rerun read apart in the tree, the flow and the DOT (Graphviz renders it)", async () => {
  await using d = await tmp();
  store(d.path, "error", { plan: [FIRST, RERUN] });
  assert.deepEqual(jobLines(await prov(d.path, "plan"), /^ {2}job /), [
    "  job total=616 prompt=615 cont=1 Planner/ask cefe35d2 [error]",
    "  job total=1.2K prompt=1.2K cont=1 Planner/ask cefe35d2 rerun 2",
  ]);
  const flow = jobLines(await prov(d.path, "plan", "--flow"), /^\[ *\d+\] Job /);
  assert.equal(flow.length, 2);
  assert.match(flow[0]!, /^\[ 1\] Job {3}Planner\/ask cefe35d2 \[error\] +616 cefe35d2$/);
  assert.match(flow[1]!, /^\[ 2\] Job {3}Planner\/ask cefe35d2 rerun 2 +1\.2k cefe35d2$/);
  const dot = await prov(d.path, "plan", "--dot", "-");
  assert.deepEqual(
    jobLines(dot, /shape=box/).map((l) => /label="Job\\n([^\\]*)\\n/.exec(l)?.[1]),
    ["Planner/ask cefe35d2 [error]", "Planner/ask cefe35d2 rerun 2"],
  );
  assertRenders(dot);
  // the page and Mermaid draw the flow's labels
  assert.match(await prov(d.path, "plan", "--mermaid"), /Job: Planner\/ask cefe35d2 rerun 2<br\/>/);
});

Deno.test("R111-3: two done runs and two reruns of one label are not byte-identical", async () => {
  await using d = await tmp();
  store(d.path, "done", { plan: [FIRST, RERUN, RERUN3] });
  const tree = await prov(d.path, "plan");
  assert.deepEqual(jobLines(tree, /^ {2}job /).map((l) => l.replace(/^.* Planner/, "Planner")), [
    "Planner/ask cefe35d2",
    "Planner/ask cefe35d2 rerun 2",
    "Planner/ask cefe35d2 rerun 3",
  ]);
  // told apart by the mark: no path digest is needed in the flow
  const flow = jobLines(await prov(d.path, "plan", "--flow"), /^\[ *\d+\] Job /);
  assert.deepEqual(flow.map((l) => l.slice(11, 63).trimEnd()), [
    "Planner/ask cefe35d2",
    "Planner/ask cefe35d2 rerun 2",
    "Planner/ask cefe35d2 rerun 3",
  ]);
  // --long shows the paths, which say it
  const long = jobLines(await prov(d.path, "plan", "--long"), /^ {2}job /);
  assert.ok(long.every((l) => !l.includes(" rerun ")), long.join("\n"));
  assert.ok(long.some((l) => l.endsWith(`/store/${RERUN}`)), long.join("\n"));
});

Deno.test("R111-3: a rerun with no sibling of its label keeps its label; the JSON keeps every label", async () => {
  await using d = await tmp();
  store(d.path, "error", { alone: [RERUN], plan: [FIRST, RERUN] });
  assert.deepEqual(jobLines(await prov(d.path, "alone"), /^ {2}job /), [
    "  job total=1.2K prompt=1.2K cont=1 Planner/ask cefe35d2",
  ]);
  assert.match(await prov(d.path, "alone", "--flow"), /\n\[ 1\] Job {3}Planner\/ask cefe35d2 {32}/);
  for (const chat of ["alone", "plan"]) {
    const doc = ProvenanceDocument.parse(JSON.parse(await prov(d.path, chat, "--json")));
    const jobs = doc.nodes.filter((n) => n.kind === "job");
    assert.ok(jobs.length > 0);
    for (const n of jobs) {
      assert.equal(n.label, "Planner/ask cefe35d2");
      assert.ok(!("rerun" in n));
    }
  }
});

Deno.test("jobRerun and rerunMarks: the port's rerun names, marked only beside a job of their label", () => {
  assert.equal(jobRerun(`/j/${RERUN}`), 2);
  assert.equal(jobRerun(`/j/Boss/ask/tools-d9c4d804f800-rerun-12_${DIGEST}.chat`), 12);
  assert.equal(jobRerun(`/j/${FIRST}`), null);
  assert.equal(jobRerun(`/j/W/t/rerun-2_mine`), null, "a user's --jobname");
  assert.equal(jobRerun(`/j/W/t/myrerun-2_${DIGEST}`), null);
  const job = (workflow: string, shortId = "cefe35d2"): JobSummary => ({
    workflow,
    task: "ask",
    type: "chat",
    status: "done",
    shortId,
  });
  const paths = ["/s.chat", `/j/${FIRST}`, `/j/${RERUN}`, `/j/Other/ask/rerun-2_${DIGEST}.chat`];
  assert.deepEqual(
    [...rerunMarks([null, job("Planner"), job("Planner"), job("Other")], paths)],
    [[2, 2]],
  );
  assert.deepEqual([...rerunMarks([null, null, job("Planner"), null], paths)], []);
});
