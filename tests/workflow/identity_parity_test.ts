/**
 * Job identity cases where the port must find the same jobs as Scout's
 * engine (issue 10 C): unprovided jobname inputs, `fromInput` with an
 * unprovided parent input, override keys, select values outside their
 * options. Expected names are md5 of digest strings spelled out by hand
 * from `workflow.md` §2 and Scout's `Task#job` / `assign_inputs` /
 * `load_dep`, not taken from our own output.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { jobInfo } from "../../src/workflow/info.ts";
import { jobStore } from "../../src/workflow/store.ts";
import { md5hex } from "../../src/util/hash.ts";
import { homeIn, tempDir } from "../support/cli.ts";
import { ownRecord } from "../../src/util/own_record.ts";

const named = (dir: string) =>
  workflow("Named", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      greet: {
        type: "string",
        inputs: {
          who: input.string({ jobname: true }),
          x: input.integer({ default: 1 }),
        },
        run: ({ who, x }) => `Hi ${who} ${x}`,
      },
    },
  });

Deno.test("unprovided jobname input takes the id and is listed as non-default (§2.1, §2.2)", async () => {
  await using d = await tempDir();
  const W = named(d.path);
  const plainJob = createJob(W, "greet", { env: homeIn(d.path) });
  assert.equal(plainJob.inputs.who, "Default"); // was null
  assert.equal(plainJob.name, "Default");
  assert.deepEqual(plainJob.nonDefaultInputs, ["who"]); // Scout: assign_inputs({}, id) lists it
  assert.deepEqual(plainJob.providedInputs, ownRecord());
  // A non-default input digests the id into the input array: [Default, 3].
  const x3 = createJob(W, "greet", { env: homeIn(d.path), inputs: { x: 3 } });
  assert.equal(x3.name, "Default_" + md5hex("{inputs=[Default, 3], dependencies=[]}"));
  assert.deepEqual(x3.nonDefaultInputs, ["who", "x"]);
  assert.deepEqual(x3.providedInputs, ownRecord({ x: 3 }));
  // An explicit name: the input takes it, no digest.
  const mine = createJob(W, "greet", { env: homeIn(d.path), jobname: "mine" });
  assert.equal(mine.inputs.who, "mine");
  assert.equal(mine.name, "mine");
  assert.deepEqual(mine.nonDefaultInputs, ["who"]);
  // Given and equal to the id: listed and provided, still no digest.
  const bob = createJob(W, "greet", { env: homeIn(d.path), inputs: { who: "bob" } });
  assert.equal(bob.name, "bob");
  assert.deepEqual(bob.nonDefaultInputs, ["who"]);
  assert.deepEqual(bob.providedInputs, ownRecord({ who: "bob" }));
  // Given and different from the explicit name: digest.
  const both = createJob(W, "greet", {
    env: homeIn(d.path),
    inputs: { who: "bob" },
    jobname: "mine",
  });
  assert.equal(both.name, "mine_" + md5hex("{inputs=[bob, 1], dependencies=[]}"));
  // .info agrees with the job.
  assert.equal(await runJob(plainJob), "Hi Default 1");
  const info = await jobInfo(plainJob.path);
  assert.deepEqual(info!.non_default_inputs, ["who"]);
  assert.deepEqual(info!.provided_inputs, {});
  assert.deepEqual(info!.inputs, ["Default", 1]);
  await runJob(x3);
  const info3 = await jobInfo(x3.path);
  assert.deepEqual(info3!.non_default_inputs, ["who", "x"]);
  assert.deepEqual(info3!.provided_inputs, { x: 3 });
  assert.deepEqual(info3!.inputs, ["Default", 3]);
});

Deno.test("fromInput of an unprovided parent input passes the symbol, not the parent's default (§1.4)", async () => {
  await using d = await tempDir();
  const W = workflow("From", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      a: { type: "string", inputs: { t: input.string({ default: "dt" }) }, run: ({ t }) => t },
      n: { type: "string", inputs: { n: input.integer({ default: 1 }) }, run: ({ n }) => n },
      p: {
        type: "string",
        inputs: { x: input.string({ default: "dflt" }) },
        deps: [{ task: "a", inputs: { t: { fromInput: "x" } } }],
        run: async (_i, job) => String(await job.load("a")),
      },
      typed: {
        type: "string",
        inputs: { k: input.integer({ default: 3 }) },
        deps: [{ task: "n", inputs: { n: { fromInput: "k" } } }],
        run: () => "",
      },
      opt: {
        type: "string",
        inputs: { x: input.string({ default: "dflt" }) },
        deps: [
          { task: "a", inputs: { t: { fromInput: "x" }, x: "opt" } },
          { task: "a", inputs: { t: { fromInput: "zz" }, zz: "opt" } },
        ],
        run: () => "",
      },
    },
  });
  const p = createJob(W, "p", { env: homeIn(d.path) });
  const dep = p.deps[0]!;
  assert.equal(dep.inputs.t, "x"); // was "dflt"
  assert.equal(dep.name, "Default_" + md5hex("{inputs=[x], dependencies=[]}"));
  assert.deepEqual(dep.nonDefaultInputs, ["t"]);
  assert.equal(p.name, "Default"); // t is fixed by the dep options: the parent is clean
  assert.deepEqual(p.nonDefaultInputs, []);
  // Provided: the parent's provided value.
  const ph = createJob(W, "p", { env: homeIn(d.path), inputs: { x: "hello" } });
  assert.equal(ph.deps[0]!.name, "Default_" + md5hex("{inputs=[hello], dependencies=[]}"));
  // A symbol is never coerced: an integer input gets `k`, as Scout's :k.
  const typed = createJob(W, "typed", { env: homeIn(d.path) });
  assert.equal(typed.deps[0]!.inputs.n, "k");
  assert.equal(typed.deps[0]!.name, "Default_" + md5hex("{inputs=[k], dependencies=[]}"));
  // The options' own value counts only for an input the parent declares.
  const opt = createJob(W, "opt", { env: homeIn(d.path) });
  assert.equal(opt.deps[0]!.inputs.t, "opt");
  assert.equal(opt.deps[1]!.inputs.t, "zz");
  // .info of the dependency agrees.
  assert.equal(await runJob(p), "x");
  const info = await jobInfo(dep.path);
  assert.deepEqual(info!.provided_inputs, { t: "x" });
  assert.deepEqual(info!.non_default_inputs, ["t"]);
  assert.deepEqual(info!.inputs, ["x"]);
});

Deno.test("override keys never appear in non_default_inputs or provided_inputs; overrides digest every level", async () => {
  await using d = await tempDir();
  const st = jobStore({ env: { SCOUT_HOME: d.path }, cwd: d.path, jobsDir: join(d.path, "jobs") });
  const W = workflow("Over", {
    tasks: {
      a: { type: "string", run: () => "a" },
      b: { type: "string", deps: ["a"], run: async (_i, job) => `b(${await job.load("a")})` },
      c: { type: "string", deps: ["b"], run: async (_i, job) => `c(${await job.load("b")})` },
    },
  });
  const target = join(d.path, "jobs", "Over", "a", "Custom");
  mkdirSync(join(d.path, "jobs", "Over", "a"), { recursive: true });
  writeFileSync(target, "custom");
  const b = createJob(W, "b", { inputs: { "Over#a": target }, store: st });
  assert.equal(b.deps[0]!.path, target);
  assert.deepEqual(b.nonDefaultInputs, []);
  assert.deepEqual(b.providedInputs, ownRecord());
  assert.equal(
    b.name,
    "Default_" + md5hex("{inputs=[], dependencies=[Step: var/jobs/Over/a/Custom]}"),
  );
  // c does not depend on a directly: Scout still digests it (its dependency was overridden).
  const c = createJob(W, "c", { inputs: { "Over#a": target }, store: st });
  assert.equal(c.deps[0]!.path, b.path);
  assert.deepEqual(c.nonDefaultInputs, []);
  assert.deepEqual(c.providedInputs, ownRecord());
  assert.equal(
    c.name,
    "Default_" + md5hex(`{inputs=[], dependencies=[Step: var/jobs/Over/b/${b.name}]}`),
  );
  assert.equal(await runJob(c), "c(b(custom))");
  for (const j of [c, b]) {
    const info = await jobInfo(j.path);
    assert.deepEqual(info!.non_default_inputs, [], j.shortPath);
    assert.deepEqual(info!.provided_inputs, {}, j.shortPath);
  }
});

Deno.test("select values outside their options are accepted, trimmed, and warned about once (§1.3)", async () => {
  await using d = await tempDir();
  const W = workflow("Sel", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      whisk: {
        type: "string",
        inputs: { style: input.select(["soft", "hard"], { default: "soft" }) },
        run: ({ style }) => String(style),
      },
      top: {
        type: "string",
        inputs: { style: input.select(["soft", "hard"], { default: "soft" }) },
        deps: ["whisk"],
        run: ({ style }) => String(style),
      },
    },
  });
  const warnings: string[] = [];
  const j = createJob(W, "top", {
    env: homeIn(d.path),
    inputs: { style: " medium \n" },
    warn: (m) => warnings.push(m),
  });
  assert.equal(j.inputs.style, "medium");
  assert.equal(j.deps[0]!.inputs.style, "medium");
  const whisk = "Default_" + md5hex("{inputs=[medium], dependencies=[]}");
  assert.equal(j.deps[0]!.name, whisk);
  assert.equal(
    j.name,
    "Default_" + md5hex(`{inputs=[medium], dependencies=[Step: var/jobs/Sel/whisk/${whisk}]}`),
  );
  assert.deepEqual(warnings, [
    'Input "style" of Sel/top is "medium", not one of "soft", "hard"; using it anyway',
  ]);
  assert.equal(await runJob(j), "medium");
  assert.equal(await runJob(j.deps[0]!), "medium");
  // A value among the options: no warning.
  createJob(W, "top", {
    env: homeIn(d.path),
    inputs: { style: "hard" },
    warn: (m) => warnings.push(m),
  });
  assert.equal(warnings.length, 1);
});
