/**
 * Deploy rules (precedence, time spans, chains, errors), batch units (chains
 * grouped, dependencies), the batch script header, the dependency order of a
 * graph, and running one job without its dependencies.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { isScoutError } from "../../src/errors.ts";
import {
  batchScript,
  batchUnits,
  combineResources,
  graphJobs,
  parseRules,
  pendingJobs,
  slurmTime,
  taskResources,
} from "../../src/workflow/deploy/mod.ts";
import { homeIn, runMain, tempDir } from "../support/cli.ts";
import { BAKING } from "./cli_support.ts";

const RULES = `
defaults: { time: 1h, cpus: 1, mem: 2G, queue: normal }
Line:
  defaults: { mem: 4G, partition: short }
  c: { cpus: 4, time: 30m }
chains:
  ab:
    workflow: Line
    tasks: a, b
`;

function line(dir: string) {
  return workflow("Line", {
    jobsDir: dir,
    tasks: {
      a: { type: "string", run: () => "a" },
      b: { type: "string", deps: ["a"], run: async (_i, j) => `${await j.load("a")}b` },
      c: { type: "string", deps: ["b"], run: async (_i, j) => `${await j.load("b")}c` },
    },
  });
}

Deno.test("rules: task keys over workflow defaults over defaults; queue is qos", async () => {
  const rules = await parseRules(RULES, "rules.yaml");
  assert.deepEqual(taskResources(rules, "Line", "c"), {
    cpus: 4,
    time: "00:30:00",
    mem: "4G",
    partition: "short",
    qos: "normal",
  });
  assert.deepEqual(taskResources(rules, "Line", "a"), {
    cpus: 1,
    time: "01:00:00",
    mem: "4G",
    partition: "short",
    qos: "normal",
  });
  assert.deepEqual(taskResources(rules, "Other", "x"), {
    cpus: 1,
    time: "01:00:00",
    mem: "2G",
    qos: "normal",
  });
});

Deno.test("rules are YAML 1.1 as Ruby's orchestrator reads them: `exclusive: yes` is true (R80-3)", async () => {
  const rules = await parseRules("Line:\n  c: { exclusive: yes, cpus: 1_0 }\n", "rules.yaml");
  assert.deepEqual(taskResources(rules, "Line", "c"), { exclusive: true, cpus: 10 });
});

Deno.test("rules: a time in SLURM's colon forms means what SLURM reads, plain or quoted, not Psych's sexagesimal (R84-1)", async () => {
  for (
    const [time, want] of [
      ["30:00", "00:30:00"],
      ["1:30", "00:01:30"],
      ["45:30", "00:45:30"],
      ["2:00:00", "02:00:00"],
      ["1-12", "1-12:00:00"],
      ["1-2:30", "1-02:30:00"],
      ["2-03:04:05", "2-03:04:05"],
    ]
  ) {
    for (const written of [time, `"${time}"`, `'${time}'`]) {
      const text = `defaults: { time: ${written} }\nLine:\n  c:\n    time: ${written}\n`;
      const rules = await parseRules(text, "rules.yaml");
      assert.equal(taskResources(rules, "Line", "c").time, want, written);
      assert.equal(taskResources(rules, "Line", "a").time, want, written);
    }
  }
  // a chain sums the times as SLURM reads them
  const rules = await parseRules("Line:\n  a: { time: 30:00 }\n  b: { time: 1-0 }\n", "r.yaml");
  assert.equal(
    combineResources([taskResources(rules, "Line", "a"), taskResources(rules, "Line", "b")]).time,
    "1-00:30:00",
  );
});

Deno.test("rules: time spans in SLURM form; combined resources sum time and take the largest cpus", () => {
  assert.equal(slurmTime("90s"), "00:01:30");
  assert.equal(slurmTime("1h30m"), "01:30:00");
  assert.equal(slurmTime("2d"), "2-00:00:00");
  assert.equal(slurmTime(3600), "01:00:00");
  assert.equal(slurmTime("1-02:00:00"), "1-02:00:00");
  assert.deepEqual(
    combineResources([{ cpus: 1, time: "00:30:00", mem: "1G" }, { cpus: 3, time: "01:00:00" }]),
    { cpus: 3, time: "01:30:00", mem: "1G" },
  );
});

Deno.test("rules: bad values are one clear error naming the file", async () => {
  for (
    const [text, msg] of [
      ["defaults: { time: soon }", /^Deploy rules defaults\.time: Time "soon" is not a time span/],
      ["defaults: { cpus: 0 }", /^Deploy rules defaults\.cpus: "0" must be a whole number/],
      ["- a\n- b", /must be a mapping/],
      ["chains: { x: { tasks: W#a } }", /needs at least two tasks/],
      ['chains: { x: { tasks: "a, b" } }', /task "a" needs a workflow/],
    ] as const
  ) {
    await assert.rejects(parseRules(text, "r.yaml"), (e) => {
      assert.ok(isScoutError(e, "deploy_rules"));
      assert.match(e.message, msg);
      assert.equal(e.file, "r.yaml");
      return true;
    });
  }
});

Deno.test("rules: a typo'd key, a word for a number, a bad size or boolean fail naming the key's path and line (R79-4, R79-14)", async () => {
  const typo = "Baking:\n  defaults: { partition: main }\n  cake:\n    cpus: 2\n";
  for (
    const [text, msg, line] of [
      [
        typo + "    cpu: 4\n",
        /^Deploy rules Baking\.cake\.cpu: Unknown key \(did you mean "cpus"\?\)/,
        5,
      ],
      [
        typo + "    nodes: two\n",
        /^Deploy rules Baking\.cake\.nodes: "two" must be a whole number/,
        5,
      ],
      [typo + "    mem: lots\n", /^Deploy rules Baking\.cake\.mem: "lots" is not a memory size/, 5],
      [
        typo + "    exclusive: 'maybe'\n",
        /^Deploy rules Baking\.cake\.exclusive: "maybe" must be true or false/,
        5,
      ],
      [
        typo + "    partition: [a, b]\n",
        /^Deploy rules Baking\.cake\.partition: Must be one value/,
        5,
      ],
      ["defaults:\n  cpus: -1\n", /^Deploy rules defaults\.cpus: "-1" must be a whole number/, 2],
      ["Baking:\n  time: 1h\n", /^Deploy rules Baking\.time: .*goes under Baking\.defaults$/, 2],
    ] as const
  ) {
    await assert.rejects(parseRules(text, "r.yaml"), (e) => {
      assert.ok(isScoutError(e, "deploy_rules"), String(e));
      assert.match(e.message, msg);
      assert.deepEqual([e.file, e.line], ["r.yaml", line], text);
      return true;
    });
  }
  // Scout's own keys load (a file shared with the Ruby Scout); a quoted "yes", a node range and
  // a size as a number are understood
  const shared = await parseRules(
    "Baking:\n  cake: { exclusive: 'yes', nodes: 2-4, mem: 2048, log: 3, skip: true, config_keys: x }\n",
    "r.yaml",
  );
  assert.deepEqual(taskResources(shared, "Baking", "cake"), {
    exclusive: true,
    nodes: "2-4",
    mem: "2048",
  });
});

Deno.test("rules: a value with a control character fails naming its key and line; the batch script never gets it (R88-8)", async () => {
  for (
    const [text, msg, line] of [
      [
        'Baking:\n  cake: { partition: "x\\ny" }\n',
        /^Deploy rules Baking\.cake\.partition: "x\\ny" contains a control character \(U\+000A\)/,
        2,
      ],
      [
        'defaults:\n  cpus: 1\n  account: "a\\rb"\n',
        /^Deploy rules defaults\.account: .* \(U\+000D\)/,
        3,
      ],
      [
        'Baking:\n  cake:\n    gres: "gpu\\x7f"\n',
        /^Deploy rules Baking\.cake\.gres: .*\(U\+007F\)/,
        3,
      ],
      ['Baking:\n  cake:\n    qos: "a\\tb"\n', /^Deploy rules Baking\.cake\.qos: .*\(U\+0009\)/, 3],
      [
        'Baking:\n  cake:\n    mem: "2G\\nx"\n',
        /^Deploy rules Baking\.cake\.mem: .*\(U\+000A\)/,
        3,
      ],
    ] as const
  ) {
    await assert.rejects(parseRules(text, "r.yaml"), (e) => {
      assert.ok(isScoutError(e, "deploy_rules"), String(e));
      assert.match(e.message, msg);
      assert.ok(!e.message.includes("\n"), e.message);
      assert.deepEqual([e.file, e.line], ["r.yaml", line], text);
      return true;
    });
  }
  await using d = await tempDir();
  const rules = join(d.path, "r.yaml");
  writeFileSync(rules, 'Baking:\n  cake: { partition: "x\\ntouch pwned #" }\n');
  const r = await runMain(
    ["workflow", "task", BAKING, "cake", "--deploy", "slurm", "--dry-run", "--deploy-rules", rules],
    { cwd: d.path, env: homeIn(d.path) },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    'scout-ai: Deploy rules Baking.cake.partition: "x\\ntouch pwned #" contains a control ' +
      `character (U+000A); a value must be one line of text (${rules}:2)\n`,
  );
});

Deno.test("rules naming a task the graph's workflow has not are warned about, with their line (R79-4)", async () => {
  await using d = await tempDir();
  const rules = join(d.path, "rules.yaml");
  writeFileSync(
    rules,
    "Baking:\n  cake: { cpus: 2 }\n  cakee: { cpus: 4 }\nOther:\n  x: { cpus: 1 }\n" +
      "chains:\n  prep:\n    workflow: Baking\n    tasks: whisk, batterr\n",
  );
  const r = await runMain(
    ["workflow", "task", BAKING, "cake", "--deploy", "slurm", "--dry-run", "--deploy-rules", rules],
    { cwd: d.path, env: homeIn(d.path) },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    `scout-ai: warning: deploy rules Baking.cakee (${rules}:3): Baking has no task "cakee"; ` +
      "its rules never apply\n" +
      `scout-ai: warning: deploy rules chains.prep (${rules}:9): Baking has no task "batterr"; ` +
      "its rules never apply\n",
  );
});

Deno.test("rules naming a task like an Object.prototype member are warned about too (R112-5)", async () => {
  await using d = await tempDir();
  const rules = join(d.path, "rules.yaml");
  writeFileSync(
    rules,
    "Baking:\n  toString: { cpus: 2 }\nchains:\n  prep:\n    workflow: Baking\n" +
      "    tasks: whisk, constructor\n",
  );
  const r = await runMain(
    ["workflow", "task", BAKING, "cake", "--deploy", "slurm", "--dry-run", "--deploy-rules", rules],
    { cwd: d.path, env: homeIn(d.path) },
  );
  assert.equal(r.code, 0, r.stderr);
  // before: no warning (`task in w.tasks` found Object.prototype's members)
  assert.equal(
    r.stderr,
    `scout-ai: warning: deploy rules Baking.toString (${rules}:2): Baking has no task "toString"; ` +
      "its rules never apply\n" +
      `scout-ai: warning: deploy rules chains.prep (${rules}:6): Baking has no task "constructor"; ` +
      "its rules never apply\n",
  );
});

Deno.test("rules: a YAML syntax error names the file and line, the problem on one line", async () => {
  for (
    const [text, line] of [["defaults: [", 1], [
      "defaults:\n  cpus: 2\n bad indent: x\n",
      3,
    ]] as const
  ) {
    await assert.rejects(parseRules(text, "r.yaml"), (e) => {
      assert.ok(isScoutError(e, "deploy_rules"));
      assert.match(e.message, /^Cannot parse deploy rules: [^\n]*[a-z\]]$/); // no "at line…:"
      assert.deepEqual([e.file, e.line], ["r.yaml", line]);
      return true;
    });
  }
});

Deno.test("batch units: a chain's jobs share one batch job; the rest follow with afterok", async () => {
  await using d = await tempDir();
  const wf = line(join(d.path, "jobs"));
  const top = createJob(wf, "c", { env: homeIn(d.path) });
  assert.deepEqual(graphJobs(top).map((j) => j.taskName), ["a", "b", "c"]);
  const rules = await parseRules(RULES, "rules.yaml");
  const units = batchUnits(top, rules, join(d.path, "batch"));
  assert.deepEqual(units.map((u) => u.jobs.map((j) => j.taskName)), [["a", "b"], ["c"]]);
  assert.match(units[0]!.name, /^SLURM_scout_job-Line-b-Default-[0-9a-f]{8}$/);
  assert.deepEqual(units[1]!.after, [units[0]]);
  // The chain's resources: both tasks' time summed, largest cpus.
  assert.equal(units[0]!.resources.time, "02:00:00");
  const script = batchScript(units[0]!, ["scout-ai", "x y", "--deploy-job", "/j/a"], "/w d");
  assert.match(script, /^#!\/bin\/bash\n#SBATCH --job-name=scout-ai-b-Default\n/);
  assert.ok(script.includes(`#SBATCH --chdir='/w d'\n`));
  assert.ok(script.includes(`#SBATCH --time=02:00:00\n#SBATCH --mem=4G\n`));
  assert.ok(script.includes(`\n( trap - INT QUIT; exec scout-ai 'x y' --deploy-job /j/a ) &\n`));
  // Without rules every pending job is its own unit; done jobs are left out.
  await runJob(createJob(wf, "a", { env: homeIn(d.path) }));
  assert.deepEqual(pendingJobs(top).map((j) => j.taskName), ["b", "c"]);
  const plain = batchUnits(top, { raw: {}, chains: [] }, join(d.path, "batch"));
  assert.deepEqual(plain.map((u) => u.jobs.map((j) => j.taskName)), [["b"], ["c"]]);
});

Deno.test("dependencies: require-done computes only the job and refuses one whose dependency is missing", async () => {
  await using d = await tempDir();
  const wf = line(join(d.path, "jobs"));
  const c = createJob(wf, "c", { env: homeIn(d.path) });
  await assert.rejects(runJob(c, { dependencies: "require-done" }), (e) => {
    assert.ok(isScoutError(e, "dependency_not_done"));
    assert.match(e.message, /Dependency "Line\/b\/Default" of "Line\/c\/Default" is not done/);
    return true;
  });
  assert.ok(!existsSync(c.deps[0]!.path));
  assert.ok(!existsSync(c.path + ".info"));
  await runJob(createJob(wf, "b", { env: homeIn(d.path) }));
  assert.equal(await runJob(c, { dependencies: "require-done" }), "abc");
});
