import assert from "node:assert/strict";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import {
  cleanJob,
  cleanJobRecursive,
  execJob,
  isOutdated,
  isRunning,
  produceJob,
  runJob,
} from "../../src/workflow/run.ts";
import { jobInfo, writeJobInfo } from "../../src/workflow/info.ts";
import { hostname } from "node:os";
import { isScoutError, ScoutError } from "../../src/errors.ts";
import { homeIn, tempDir } from "../support/cli.ts";

const TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/;

/** Replaces volatile values (times, pid, host, elapsed, backtrace, exception) for golden comparison. */
function stable(info: Record<string, unknown> | null, dir: string): unknown {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(info ?? {})) {
    if (["issued", "start", "end"].includes(k)) {
      assert.match(String(v), TIME, k);
      out[k] = "<time>";
    } else if (k === "pid") out[k] = typeof v === "number" ? "<pid>" : v;
    else if (k === "pid_hostname") out[k] = typeof v === "string" ? "<host>" : v;
    else if (k.endsWith("time_elapsed")) out[k] = typeof v === "number" && v >= 0 ? "<secs>" : v;
    else if (k === "exception") {
      out[k] = typeof v === "string" && v.endsWith("\n") ? "<marshal>" : v;
    } else if (k === "backtrace") out[k] = Array.isArray(v) && v.length > 0 ? "<backtrace>" : v;
    else out[k] = JSON.parse(JSON.stringify(v).replaceAll(dir, "<dir>"));
  }
  return out;
}

function baking(counts: Record<string, number>, dir: string) {
  const bump = (k: string) => counts[k] = (counts[k] ?? 0) + 1;
  return workflow("Baking", {
    jobsDir: join(dir, "jobs"),
    tasks: {
      whisk: {
        type: "string",
        inputs: {
          eggs: input.integer({ default: 2 }),
          style: input.select(["soft", "hard"], { default: "soft" }),
        },
        run: async ({ eggs, style }, job) => {
          bump("whisk");
          await job.log("whisking", `Whisking ${eggs}`);
          return `Whisked ${eggs} ${style}`;
        },
      },
      batter: {
        type: "json",
        inputs: { flour: input.float({ default: 0.5 }) },
        deps: ["whisk"],
        run: async ({ flour }, job) => {
          bump("batter");
          return { batter: await job.load("whisk"), flour };
        },
      },
      cake: {
        type: "string",
        deps: ["batter", "whisk"],
        run: async (_i, job) => {
          bump("cake");
          const b = await job.load("batter") as { batter: string };
          return `Cake of ${b.batter}`;
        },
      },
      fail: {
        type: "string",
        inputs: { x: input.string({ default: "bad x" }) },
        run: ({ x }) => {
          throw new ScoutError("parameter", x);
        },
      },
      crash: { type: "string", run: () => JSON.parse("{") },
      nothing: { type: "string", run: () => null },
      viaTmp: {
        type: "text",
        run: (_i, job) => {
          writeFileSync(job.tmpPath, "written by the task");
          return null;
        },
      },
      files: {
        type: "string",
        run: async (_i, job) => {
          writeFileSync(job.file("artifacts/x.txt"), "artifact");
          await job.setInfo("extra", ["a"]);
          await job.setInfo("extra", ["b"]);
          return job.shortPath;
        },
      },
    },
  });
}

Deno.test("done info golden: Baking/batter given eggs 3 (spec §3.2 example)", async () => {
  await using d = await tempDir();
  const counts: Record<string, number> = {};
  const wf = baking(counts, d.path);
  const job = createJob(wf, "batter", { env: homeIn(d.path), inputs: { eggs: 3 } });
  assert.deepEqual(await runJob(job), { batter: "Whisked 3 soft", flour: 0.5 });
  assert.equal(readFileSync(job.path, "utf8"), '{"batter":"Whisked 3 soft","flour":0.5}');
  const info = await jobInfo(job.path);
  assert.deepEqual(stable(info, d.path), {
    status: "done",
    issued: "<time>",
    pid: "<pid>",
    pid_hostname: "<host>",
    task_name: "batter",
    workflow: "Baking",
    provided_inputs: { eggs: 3 },
    non_default_inputs: ["eggs"],
    inputs: [0.5],
    input_names: ["flour"],
    type: "json",
    dependencies: ["<dir>/jobs/Baking/whisk/Default_09c565660e3592e6a4001674e5a22269"],
    start: "<time>",
    time_elapsed: "<secs>",
    total_time_elapsed: "<secs>",
    end: "<time>",
  });
  const whisk = await jobInfo(job.deps[0]!.path);
  assert.equal(whisk?.status, "done");
  assert.deepEqual(whisk?.messages, ["Whisking 3"]);
  assert.deepEqual(whisk?.inputs, [3, "soft"]);
  // done → loaded, info untouched, body not rerun
  const before = readFileSync(job.path + ".info", "utf8");
  assert.deepEqual(
    await runJob(createJob(wf, "batter", { env: homeIn(d.path), inputs: { eggs: 3 } })),
    {
      batter: "Whisked 3 soft",
      flour: 0.5,
    },
  );
  assert.equal(readFileSync(job.path + ".info", "utf8"), before);
  assert.deepEqual(counts, { whisk: 1, batter: 1 });
});

Deno.test("error info golden: deliberate error recorded with Marshal dump, backtrace, message", async () => {
  await using d = await tempDir();
  const wf = baking({}, d.path);
  const job = createJob(wf, "fail", { env: homeIn(d.path) });
  await assert.rejects(
    () => runJob(job),
    (e) => isScoutError(e, "job_failed") && e.message === 'Job "Baking/fail/Default" failed: bad x',
  );
  assert.equal(existsSync(job.path), false);
  assert.deepEqual(stable(await jobInfo(job.path), d.path), {
    status: "error",
    issued: "<time>",
    pid: "<pid>",
    pid_hostname: "<host>",
    task_name: "fail",
    workflow: "Baking",
    provided_inputs: {},
    non_default_inputs: [],
    inputs: ["bad x"],
    input_names: ["x"],
    type: "string",
    dependencies: [],
    start: "<time>",
    exception: "<marshal>",
    end: "<time>",
    backtrace: "<backtrace>",
    messages: ["ScoutException: bad x"],
  });
  const crash = createJob(wf, "crash", { env: homeIn(d.path) });
  await assert.rejects(() => runJob(crash), /Job "Baking\/crash\/Default" failed/);
  assert.match((await jobInfo(crash.path))!.messages![0]!, /^RuntimeError: /);
});

Deno.test("DAG: a shared dependency runs once; parents list it; concurrent runs share work", async () => {
  await using d = await tempDir();
  const counts: Record<string, number> = {};
  const wf = baking(counts, d.path);
  const cake = createJob(wf, "cake", { env: homeIn(d.path), inputs: { eggs: 4 } });
  const [r1, r2] = await Promise.all([
    runJob(cake),
    runJob(createJob(wf, "cake", { env: homeIn(d.path), inputs: { eggs: 4 } })),
  ]);
  assert.equal(r1, "Cake of Whisked 4 soft");
  assert.equal(r2, r1);
  assert.deepEqual(counts, { whisk: 1, batter: 1, cake: 1 });
  const whiskPath = cake.deps[1]!.path;
  assert.equal(cake.deps[0]!.deps[0]!.path, whiskPath);
  assert.deepEqual((await jobInfo(cake.path))!.dependencies, [cake.deps[0]!.path, whiskPath]);
  assert.deepEqual((await jobInfo(cake.deps[0]!.path))!.dependencies, [whiskPath]);
});

Deno.test("null result: the tmp file is moved into place, else an empty result (§7.4 #5)", async () => {
  await using d = await tempDir();
  const wf = baking({}, d.path);
  const n = createJob(wf, "nothing", { env: homeIn(d.path) });
  assert.equal(await runJob(n), "");
  assert.equal(readFileSync(n.path, "utf8"), "");
  assert.equal((await jobInfo(n.path))!.status, "done");
  const t = createJob(wf, "viaTmp", { env: homeIn(d.path) });
  assert.equal(await runJob(t), "written by the task");
});

Deno.test("job context: files dir, set_info merge, short path", async () => {
  await using d = await tempDir();
  const wf = baking({}, d.path);
  const j = createJob(wf, "files", { env: homeIn(d.path) });
  assert.equal(await runJob(j), "Baking/files/Default");
  assert.deepEqual((await jobInfo(j.path))!.extra, ["a", "b"]);
  assert.equal(readFileSync(j.path + ".files/artifacts/x.txt", "utf8"), "artifact");
});

Deno.test("clean, recursive clean, outdated dependencies recomputed", async () => {
  await using d = await tempDir();
  const counts: Record<string, number> = {};
  const wf = baking(counts, d.path);
  const batter = createJob(wf, "batter", { env: homeIn(d.path) });
  await runJob(batter);
  const whisk = batter.deps[0]!;
  // whisk recomputed later → batter outdated
  const future = new Date(Date.now() + 60_000);
  utimesSync(whisk.path, future, future);
  assert.equal(await isOutdated(batter), true);
  const cake = createJob(wf, "cake", { env: homeIn(d.path) });
  await runJob(cake);
  assert.equal(counts.batter, 2); // outdated batter cleaned and recomputed before cake
  const past = new Date(Date.now() - 60_000);
  utimesSync(whisk.path, past, past);
  assert.equal(await isOutdated(batter), false);
  await cleanJob(cake);
  assert.equal(existsSync(cake.path) || existsSync(cake.path + ".info"), false);
  await runJob(cake);
  assert.equal(counts.cake, 2);
  await cleanJobRecursive(cake);
  assert.equal(existsSync(whisk.path), false);
  assert.equal(existsSync(whisk.path + ".info"), false);
  await runJob(cake);
  assert.deepEqual(counts, { whisk: 2, batter: 3, cake: 3 });
});

Deno.test("errors: rerun after error; produce cleans a recoverable error; dependency failure", async () => {
  await using d = await tempDir();
  let fails = true;
  const W = workflow("Flaky", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      flaky: {
        type: "integer",
        run: () => {
          if (fails) throw new Error("transient");
          return 1;
        },
      },
      top: {
        type: "integer",
        deps: ["flaky"],
        run: async (_i, job) => (await job.load("flaky") as number) + 1,
      },
      deliberate: {
        type: "integer",
        run: () => {
          throw new ScoutError("job_failed", "no");
        },
      },
      tolerant: {
        type: "string",
        deps: [{ task: "deliberate", canfail: true }],
        run: () => "went on",
      },
    },
  });
  const top = createJob(W, "top", { env: homeIn(d.path) });
  await assert.rejects(() => runJob(top), /Job "Flaky\/flaky\/Default" failed: transient/);
  assert.equal((await jobInfo(top.path))!.status, "error");
  assert.deepEqual((await jobInfo(top.path))!.messages, [
    "RuntimeError: transient", // the dependency's own error, not 'Job "…" failed: transient'
  ]);
  fails = false;
  await produceJob(top);
  assert.equal(await runJob(top), 2);
  const tol = createJob(W, "tolerant", { env: homeIn(d.path) });
  assert.equal(await runJob(tol), "went on");
  assert.equal(await runJob(tol), "went on");
});

Deno.test("exec: in memory, no files", async () => {
  await using d = await tempDir();
  const wf = baking({}, d.path);
  const j = createJob(wf, "batter", { env: homeIn(d.path), inputs: { eggs: 5 } });
  assert.deepEqual(await execJob(j), { batter: "Whisked 5 soft", flour: 0.5 });
  assert.equal(existsSync(j.path) || existsSync(j.path + ".info"), false);
  assert.equal(existsSync(j.deps[0]!.path), false);
});

Deno.test("exec: a job given as an input value is executed when not done, loaded when done", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const W = workflow("ExecIn", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      tens: {
        type: "integer",
        inputs: { n: input.integer({ default: 1 }) },
        run: ({ n }) => {
          runs.push(`tens ${n}`);
          return n * 10;
        },
      },
      plus: {
        type: "integer",
        inputs: { v: input.integer() },
        run: ({ v }) => v + 1,
      },
    },
  });
  const tens = createJob(W, "tens", { env: homeIn(d.path), inputs: { n: 2 } });
  const plus = createJob(W, "plus", { env: homeIn(d.path), inputs: { v: tens } });
  assert.equal(await execJob(plus), 21);
  assert.deepEqual(runs, ["tens 2"]);
  assert.equal(existsSync(tens.path) || existsSync(tens.path + ".info"), false);
  await runJob(tens);
  writeFileSync(tens.path, "7"); // a done input dependency is loaded from its result file
  assert.equal(await execJob(plus), 8);
  assert.deepEqual(runs, ["tens 2", "tens 2"]);
});

Deno.test("running elsewhere: isRunning follows the info pid and host; clean refuses a live run", async () => {
  await using d = await tempDir();
  const wf = baking({}, d.path);
  const job = createJob(wf, "whisk", { env: homeIn(d.path) });
  assert.equal(await isRunning(job), false); // nothing on disk
  const other = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    const live = { status: "whisking", pid: other.pid, pid_hostname: hostname() };
    await writeJobInfo(job.path, live);
    assert.equal(await isRunning(job), true);
    await assert.rejects(
      () => cleanJob(job),
      (e) => isScoutError(e, "job_not_finished") && /is running \(pid \d+\)/.test(e.message),
    );
    assert.ok(existsSync(job.path + ".info"), "a live run's info is kept");
    await writeJobInfo(job.path, { ...live, pid: 999_999_999 });
    assert.equal(await isRunning(job), false, "a pid that is not alive here");
    await writeJobInfo(job.path, { ...live, pid: 999_999_999, pid_hostname: "elsewhere" });
    assert.equal(await isRunning(job), true, "another host's pid cannot be checked: alive");
    await writeJobInfo(job.path, { ...live, status: "error" });
    assert.equal(await isRunning(job), false, "a final status is not running");
    await cleanJob(job);
    assert.equal(existsSync(job.path + ".info"), false);
  } finally {
    other.kill();
    await other.status;
  }
});

Deno.test("a failed dependency: parents record its own message, not a wrapped one (§5, §3.2)", async () => {
  await using d = await tempDir();
  const W = workflow("Boom", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      boom: {
        type: "string",
        run: () => {
          throw new ScoutError("job_failed", "boom failed");
        },
      },
      mid: { type: "string", deps: ["boom"], run: () => "never" },
      top: { type: "string", deps: ["mid"], run: () => "never" },
    },
  });
  const top = createJob(W, "top", { env: homeIn(d.path) });
  // What is thrown still names the job that failed.
  await assert.rejects(() => runJob(top), /Job "Boom\/boom\/Default" failed: boom failed/);
  for (const j of [top, top.deps[0]!, top.deps[0]!.deps[0]!]) {
    const info = await jobInfo(j.path);
    assert.equal(info!.status, "error", j.shortPath);
    assert.deepEqual(info!.messages, ["ScoutException: boom failed"], j.shortPath);
  }
  // boom is now in an unrecoverable error: mid fails before running, top records boom's message.
  await cleanJob(top);
  await cleanJob(top.deps[0]!);
  await assert.rejects(() => runJob(top), /boom failed/);
  assert.deepEqual((await jobInfo(top.path))!.messages, ["ScoutException: boom failed"]);
});
