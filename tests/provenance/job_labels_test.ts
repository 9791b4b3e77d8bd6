/**
 * Jobs that share a name (`--jobname`) share their short id (`provenance.md`
 * §10.3: the file name's first 8 characters, as Ruby's; an agent's
 * `tools-<12 hex>_`/`rerun-<n>_` names are dropped first, R87-1), so the tree shows them alike under their totals; the
 * flat views tell them apart by their paths instead of repeating the short id
 * the label already has, and `--by job` groups by the job itself, not its label.
 * The jobs are made by the real `workflow task` command (the Baking fixture
 * workflow), each given a log with one inference.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { jobShortId } from "../../src/provenance/labels.ts";
import { ROOT, runMain } from "../support/cli.ts";
import { mkJob, rc, tmp, tok, write } from "./support.ts";

const D1 = "b4bd4948975eaeee0510916bd4f0e87a";

Deno.test("jobShortId: the file name without Default_, first 8 characters (provenance.md §10.3)", () => {
  assert.equal(jobShortId(`/j/W/t/Default_${D1}.chat`), "b4bd4948");
  assert.equal(jobShortId(`/j/W/t/Default_${D1}`), "b4bd4948");
  assert.equal(jobShortId(`/j/W/t/saturday_bake_${D1}`), "saturday");
  assert.equal(jobShortId("/j/c"), "c");
});

const D2 = "a405dad8c0ffee00112233445566778a";

Deno.test("jobShortId R87-1: an agent's tools-<12hex>_ and rerun-<n>_ prefixes are the port's own, dropped before the 8", () => {
  assert.equal(jobShortId(`/j/Boss/ask/tools-d9c4d804f800_${D1}.chat`), "b4bd4948");
  assert.equal(jobShortId(`/j/Boss/ask/tools-d9c4d804f800-rerun-2_${D1}.chat`), "b4bd4948");
  assert.equal(jobShortId(`/j/W/ask/rerun-2_${D1}.chat`), "b4bd4948");
  assert.equal(jobShortId(`/j/W/ask/rerun-12_${D2}`), "a405dad8");
  // a user's --jobname is kept (its two jobs share the short id, §10.3)
  assert.equal(jobShortId(`/j/W/t/tools-x_${D1}`), "tools-x_");
  assert.equal(jobShortId(`/j/W/t/myrerun-2_${D1}`), "myrerun-");
  assert.equal(jobShortId(`/j/W/t/tools-d9c4d804f800`), "tools-d9");
});

Deno.test("R87-1: two chat-task jobs of one agent's toolset read apart in the tree, JSON and flow", async () => {
  await using d = await tmp();
  const store = join(d.path, "store");
  const names = [
    `tools-d9c4d804f800_${D1}.chat`,
    `tools-d9c4d804f800_${D2}.chat`,
    `tools-d9c4d804f800-rerun-2_${D2}.chat`,
  ];
  names.forEach((n, i) =>
    mkJob(join(store, "Boss", "ask", n), null, {
      "agent.chat": `user: go\n\nmeta: ${tok(`b${i}`, 10 + i, 1, 11 + i)}\n\nassistant: ok\n`,
    }, { workflow: "Boss", task_name: "ask", type: "chat" })
  );
  write(
    join(d.path, "s.chat"),
    rc({}, names.map((n) => ({ role: "meta", content: `job=Boss/ask/${n}` }))),
  );
  const prov = async (...args: string[]) => {
    const r = await runMain(["llm", "prov", "s.chat", "-J", store, ...args], {
      cwd: d.path,
      env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const tree = await prov();
  assert.match(tree, / Boss\/ask b4bd4948\n/);
  assert.match(tree, / Boss\/ask a405dad8\n/);
  assert.doesNotMatch(tree, /tools-d9|\(seen\)/);
  const doc = JSON.parse(await prov("--json"));
  const jobs = doc.nodes.filter((n: { kind: string }) => n.kind === "job");
  assert.deepEqual(
    jobs.map((n: { label: string; job: { shortId: string } }) => [n.label, n.job.shortId]).sort(),
    [
      ["Boss/ask a405dad8", "a405dad8"],
      ["Boss/ask a405dad8", "a405dad8"],
      ["Boss/ask b4bd4948", "b4bd4948"],
    ],
  );
  const flow = await prov("--flow");
  assert.doesNotMatch(flow, /tools-d9/);
  assert.match(flow, / Job +Boss\/ask b4bd4948 +\S+ b4bd4948\n/);
});

/** Two `Baking cake` jobs named `saturday_bake` (3 and 4 eggs), each with one logged inference. */
async function twoNamedBakes(dir: string): Promise<{ home: string; cakes: string[] }> {
  const home = join(dir, "home");
  for (const eggs of ["3", "4"]) {
    const r = await runMain(
      [
        "workflow",
        "task",
        join(ROOT, "fixtures", "workflows", "Baking"),
        "cake",
        "--eggs",
        eggs,
        "--jobname",
        "saturday_bake",
      ],
      { cwd: dir, env: { SCOUT_HOME: home, NO_COLOR: "1" } },
    );
    assert.equal(r.code, 0, r.stderr);
  }
  const cakeDir = join(home, "var", "jobs", "Baking", "cake");
  const cakes = readdirSync(cakeDir).filter((f) => /^saturday_bake_[0-9a-f]{32}$/.test(f)).sort();
  assert.equal(cakes.length, 2);
  cakes.forEach((c, i) =>
    write(
      join(cakeDir, `${c}.files`, "log", "agent.chat"),
      `user: bake\n\nmeta: ${
        tok(`bake${i}`, 100 * (i + 1), 5, 100 * (i + 1) + 5)
      }\n\nassistant: ok\n`,
    )
  );
  write(
    join(dir, "s.chat"),
    `user: cakes\n\n${cakes.map((c) => `meta: job=Baking/cake/${c}\n\n`).join("")}assistant: two\n`,
  );
  return { home, cakes };
}

Deno.test("two jobs of one --jobname: alike in the tree (§10.3), told apart by path in the flow and DOT; two rows in --by job", async () => {
  await using d = await tmp();
  const { home } = await twoNamedBakes(d.path);
  const prov = async (...args: string[]) => {
    const r = await runMain(["llm", "prov", "s.chat", ...args], {
      cwd: d.path,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const tree = await prov();
  assert.ok(tree.includes(`  job total=105 prompt=100 cont=5 Baking/cake saturday\n`), tree);
  assert.ok(tree.includes(`  job total=205 prompt=200 cont=5 Baking/cake saturday\n`), tree);

  const flow = await prov("--flow");
  const jobLines = flow.split("\n").filter((l) => / Job /.test(l));
  assert.equal(jobLines.length, 6, flow);
  const labels = jobLines.map((l) => l.slice(11, 63).trimEnd());
  assert.equal(new Set(labels).size, 6, flow);
  for (const l of labels) assert.match(l, /^Baking\/\w+ saturday [0-9a-f]{8}$/);

  const dot = await prov("--dot", "-");
  assert.match(dot, /label="Job\\nBaking\/cake saturday [0-9a-f]{8}\\n205 tokens"/);
  assert.doesNotMatch(dot, /saturday saturday/);

  const byJob = (await prov("--by", "job")).split("\n");
  assert.equal(byJob.length, 4, byJob.join("\n"));
  assert.match(byJob[1]!, /^Baking\/cake saturday [0-9a-f]{8} {2}1 {2}200 {3}5 {2}205 /);
  assert.match(byJob[2]!, /^Baking\/cake saturday [0-9a-f]{8} {2}1 {2}100 {3}5 {2}105 /);
  assert.notEqual(byJob[1]!.slice(0, 29), byJob[2]!.slice(0, 29));
});

Deno.test("--by job: jobs of one label in two stores are two rows, told apart by their paths", async () => {
  await using d = await tmp();
  const [s1, s2] = [join(d.path, "s1"), join(d.path, "s2")];
  for (const [store, id, pt] of [[s1, "x1", 10], [s2, "x2", 20]] as const) {
    mkJob(join(store, "W", "t", `Default_${D1}`), null, {
      "agent.chat": `user: go\n\nmeta: ${tok(id, pt, 1, pt + 1)}\n\nassistant: ok\n`,
    }, { workflow: "W", task_name: "t" });
  }
  write(
    join(d.path, "s.chat"),
    rc({}, [
      { role: "meta", content: `job=${join(s1, "W", "t", `Default_${D1}`)}` },
      { role: "meta", content: `job=${join(s2, "W", "t", `Default_${D1}`)}` },
    ]),
  );
  const r = await runMain(["llm", "prov", "s.chat", "--by", "job", "-J", s1, "-J", s2], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.split("\n").slice(1, -1);
  assert.equal(rows.length, 2, r.stdout);
  assert.match(rows[0]!, /^W\/t b4bd4948 [0-9a-f]{8} {2}1 {2}20 {3}1 {2}21 /);
  assert.match(rows[1]!, /^W\/t b4bd4948 [0-9a-f]{8} {2}1 {2}10 {3}1 {2}11 /);
  assert.notEqual(rows[0]!.slice(0, 21), rows[1]!.slice(0, 21));
});
