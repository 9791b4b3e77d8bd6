/**
 * What a deployed job is given for a file its inputs name (R114-2, R114-3,
 * R122-1): the file named on the command line while it is still the one
 * saved at submission, so its result and `.info` are a serial run's and name
 * no saved file that goes away (a file that changes while the job runs fails
 * it: `deploy_input_during_test.ts`); and nothing is saved for a job already
 * done.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

/** `Show/top` after `Show/dep`: each returns the path its `doc` file input was given. */
const SHOW = `export default (api) => api.workflow("Show", { tasks: {
  dep: { type: "string", inputs: { doc: api.input.file() }, run: ({ doc }) => "dep " + String(doc) },
  top: { type: "string", deps: ["dep"], inputs: { doc: api.input.file() },
    run: async ({ doc }, job) => "top " + String(doc) + " | " + (await job.load("dep")) },
} });
`;

/** `workflow task <Show> top --doc d.txt --print-path …extra` in a subprocess, in `dir`. */
async function show(dir: string, home: string, extra: string[], tmp = join(dir, "tmp")) {
  const wf = join(dir, "workflows", "Show");
  const args = ["workflow", "task", wf, "top", "--doc", "d.txt", "--print-path", ...extra];
  const r = await runScout(args, { cwd: dir, env: { SCOUT_HOME: join(dir, home), TMPDIR: tmp } });
  return { ...r, path: r.stdout.trim() };
}

/** The fields of an `.info` that say what the job is: not when, where or by which process it ran. */
function identity(path: string): Record<string, unknown> {
  const { issued: _i, pid: _p, pid_hostname: _h, start: _s, end: _e, ...rest } = readInfo(path)!;
  const { time_elapsed: _t, total_time_elapsed: _tt, ...what } = rest;
  return what;
}

Deno.test("local deploy: the task gets the file named, not the one saved: its result and .info are a serial run's, and nothing is left behind (R114-2, R122-1)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Show", SHOW);
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  mkdirSync(join(d.path, "tmp"));
  const serial = await show(d.path, "serial", []);
  assert.equal(serial.code, 0, serial.stderr);
  const local = await show(d.path, "local", ["--deploy", "local", "--cpus", "2"]);
  assert.equal(local.code, 0, local.stderr);
  const doc = join(d.path, "d.txt");
  assert.equal(readFileSync(serial.path, "utf8"), `top ${doc} | dep ${doc}`);
  assert.equal(readFileSync(local.path, "utf8"), readFileSync(serial.path, "utf8"));
  assert.equal(
    local.path.replace(join(d.path, "local"), "H"),
    serial.path.replace(join(d.path, "serial"), "H"),
  );
  for (const p of [local.path, serial.path]) {
    const info = readInfo(p)!;
    assert.deepEqual(info.inputs, [doc], p);
    assert.deepEqual(info.provided_inputs, { doc: "d.txt" });
  }
  const home = (p: string, h: string) =>
    JSON.stringify(identity(p)).replaceAll(join(d.path, h), "H");
  assert.equal(home(local.path, "local"), home(serial.path, "serial"), "the .info of a serial run");
  const dep = (p: string) => readInfo(p)!.dependencies as string[];
  assert.equal(home(dep(local.path)[0]!, "local"), home(dep(serial.path)[0]!, "serial"));
  assert.equal(local.stderr, "");
  assert.deepEqual(readdirSync(join(d.path, "tmp")), []);
});

/** R122-1's workflow: `Reads/where` returns the path its `data` file input was given. */
const READS = `export default (api) => api.workflow("Reads", { tasks: {
  where: { type: "string", inputs: { data: api.input.file() }, run: ({ data }) => String(data) } } });
`;

Deno.test("local deploy: a result that is the file input's path names the file typed, which exists after the run, as a serial run's does; the done job reused later names it too (R122-1)", async () => {
  await using d = await tempDir();
  const wf = userWorkflow(d.path, "Reads", READS);
  writeFileSync(join(d.path, "in.txt"), "hello\n");
  mkdirSync(join(d.path, "tmp"));
  const where = (home: string, extra: string[]) =>
    runScout(["workflow", "task", wf, "where", "--data", "in.txt", ...extra], {
      cwd: d.path,
      env: { SCOUT_HOME: join(d.path, home), TMPDIR: join(d.path, "tmp"), NO_COLOR: "1" },
    });
  const local = await where("home", ["--deploy", "local"]);
  assert.equal(local.code, 0, local.stderr);
  const serial = await where("serial", []);
  assert.equal(serial.code, 0, serial.stderr);
  assert.equal(local.stdout, serial.stdout);
  assert.equal(local.stdout.trim(), join(d.path, "in.txt"));
  assert.ok(existsSync(local.stdout.trim()), "the file the result names exists after the run");
  assert.deepEqual(readdirSync(join(d.path, "tmp")), [], "the run's saved files removed");
  const later = await where("home", []); // the done job, reused by a serial run
  assert.equal(later.code, 0, later.stderr);
  assert.equal(later.stdout, local.stdout);
});

Deno.test("slurm deploy: a batch job's result that is the file input's path names the file typed, not the saved link that batch clean removes (R122-1)", async () => {
  await using d = await tempDir();
  const wf = userWorkflow(d.path, "Reads", READS);
  writeFileSync(join(d.path, "in.txt"), "hello\n");
  const where = (extra: string[], path = process.env.PATH!) =>
    runMain(["workflow", "task", wf, "where", "--data", "in.txt", ...extra], {
      cwd: d.path,
      env: { ...env(d.path), PATH: path },
    });
  const sub = await where(
    ["--deploy", "slurm", "--json"],
    `${standInSlurm(d.path)}:${process.env.PATH}`,
  );
  assert.equal(sub.code, 0, sub.stderr);
  const unit = JSON.parse(sub.stdout).units[0];
  const batch = readFileSync(join(unit.batchDir, "command.batch"), "utf8");
  const saved = /--deploy-inputs (\S+)/.exec(batch)![1]!;
  const worker = await where(["--deploy-inputs", saved, "--deploy-job", unit.path]);
  assert.equal(worker.code, 0, worker.stderr);
  assert.equal(readFileSync(unit.path, "utf8"), join(d.path, "in.txt"));
});

Deno.test("local deploy of a job already done saves nothing: not even TMPDIR is used (R114-3)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Show", SHOW);
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  const serial = await show(d.path, "home", []);
  assert.equal(serial.code, 0, serial.stderr);
  // a TMPDIR nothing can be made in: a run that saved its input files would fail
  const local = await show(d.path, "home", ["--deploy", "local"], join(d.path, "d.txt", "no"));
  assert.equal(local.code, 0, local.stderr);
  assert.equal(local.path, serial.path);
  assert.equal(local.stderr, "");
  // with --clean something runs: the files are saved (where they cannot be, it says so)
  const clean = await show(
    d.path,
    "home",
    ["--deploy", "local", "--clean"],
    join(d.path, "d.txt", "no"),
  );
  assert.equal(clean.code, 1);
  assert.match(clean.stderr, /temporary directory/);
});

Deno.test("slurm deploy of a job already done saves nothing, and a dry run plans nothing to save (R114-3)", async () => {
  await using d = await tempDir();
  const wf = userWorkflow(d.path, "Show", SHOW);
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  const task = (extra: string[]) =>
    runMain(["workflow", "task", wf, "top", "--doc", "d.txt", ...extra], {
      cwd: d.path,
      env: { ...env(d.path), PATH: "/nonexistent" },
    });
  const pending = await task(["--deploy", "slurm", "--dry-run"]);
  assert.equal(pending.code, 0, pending.stderr);
  assert.match(pending.stdout, /^ln -L -- /m, "a job still to run: its file would be saved");
  assert.equal((await task([])).code, 0);
  const dry = await task(["--deploy", "slurm", "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.doesNotMatch(dry.stdout, /^(ln -L|cp) -- |--deploy-inputs/m, dry.stdout);
  const real = await task(["--deploy", "slurm"]);
  assert.equal(real.code, 0, real.stderr);
  assert.match(real.stdout, /^Show\/top\/\S+\tdone$/m);
  assert.ok(!existsSync(join(d.path, "var/batch/inputs")), "nothing saved");
  // --clean: the job runs again, its file would be saved
  const clean = await task(["--deploy", "slurm", "--dry-run", "--clean"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.match(clean.stdout, /^ln -L -- /m);
});

const SAY = `export default (api) => api.workflow("Say", { tasks: {
  echo: { type: "string", inputs: { text: api.input.text() }, run: ({ text }) => text.trim() } } });`;

Deno.test("a worker building its job from a value's saved copy warns of it by the name typed, as a serial run does (R114-2)", async () => {
  await using d = await tempDir();
  const wf = userWorkflow(d.path, "Say", SAY);
  const q = join(d.path, "q.txt");
  writeFileSync(q, new Uint8Array([0x41, 0xff, 0x0a])); // "A", a byte that is no UTF-8
  const task = (extra: string[], path = process.env.PATH!) =>
    runMain(["workflow", "task", wf, "echo", "--text", "q.txt", ...extra], {
      cwd: d.path,
      env: { ...env(d.path), PATH: path },
    });
  const sub = await task(
    ["--deploy", "slurm", "--json"],
    `${standInSlurm(d.path)}:${process.env.PATH}`,
  );
  assert.equal(sub.code, 0, sub.stderr);
  const warning = "scout-ai: warning: q.txt: invalid UTF-8 replaced by U+FFFD\n";
  const utf8 = sub.stderr.split("\n").filter((l) => l.includes("UTF-8"));
  assert.deepEqual(utf8, [warning.trim()], "once, though the job is built twice");
  const unit = JSON.parse(sub.stdout).units[0];
  const batch = readFileSync(join(unit.batchDir, "command.batch"), "utf8");
  const saved = /--deploy-inputs (\S+)/.exec(batch)![1]!;
  writeFileSync(q, "B\n"); // the worker builds from the copy
  const worker = await task(["--deploy-inputs", saved, "--deploy-job", unit.path]);
  assert.equal(worker.code, 0, worker.stderr);
  assert.equal(readFileSync(unit.path, "utf8"), "A\uFFFD");
  assert.deepEqual(worker.stderr.split("\n").filter((l) => l.includes("UTF-8")), [warning.trim()]);
});
