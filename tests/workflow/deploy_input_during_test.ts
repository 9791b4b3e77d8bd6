/**
 * A `file` input replaced, removed, or moved away, edited and moved back
 * while the job reading it runs (`--deploy local`, a SLURM batch job's
 * worker; R122-1): the task was given the file as named (R114-2), so what it
 * read may not be the bytes the job's name digests. The job's body is
 * followed by a check of that file: changed, the job fails before its result
 * is stored, its `.info` naming the input and saying the file changed while
 * it ran; no `.info` names the saved link, so the run removes it unwarned. A
 * run of the same command afterwards computes from the file as it is then, as
 * a serial run does.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { readInfo, userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

/** Which task writes `<dir>/started` and waits for `<dir>/go` before it reads `doc`. */
type Waiting = "slow" | "top";

/**
 * `R/top` after `R/slow`; both take `doc` (a file), `slow` also `text`. The
 * `waiting` one writes `<dir>/started`, waits for `<dir>/go`, and only then
 * reads `doc`; the other reads it at once.
 */
function slowWorkflow(dir: string, waiting: Waiting): string {
  const started = JSON.stringify(join(dir, "started"));
  const go = JSON.stringify(join(dir, "go"));
  const wait = `writeFileSync(${started}, "");
      for (let i = 0; i < 600 && !existsSync(${go}); i++) await new Promise((r) => setTimeout(r, 50));`;
  return userWorkflow(
    dir,
    "R",
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
export default (api) => api.workflow("R", { tasks: {
  slow: { type: "string", inputs: { doc: api.input.file(), text: api.input.text() },
    run: async ({ doc, text }) => {
      ${waiting === "slow" ? wait : ""}
      return "doc=" + readFileSync(doc, "utf8").trim() + " text=" + text.trim();
    } },
  top: { type: "string", deps: ["slow"], inputs: { doc: api.input.file() },
    run: async ({ doc }, job) => {
      ${waiting === "top" ? wait : ""}
      return "top:" + (await job.load("slow")) + " doc=" + readFileSync(doc, "utf8").trim();
    } },
} });
`,
  );
}

/** Runs scout with `args` in `dir` (a real subprocess), `change` made while the waiting job runs. */
async function whileSlowRuns(
  dir: string,
  args: string[],
  env: Record<string, string>,
  change: () => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnScout(args, { cwd: dir, env, stdin: "inherit" });
  const t0 = Date.now();
  while (!existsSync(join(dir, "started")) && Date.now() - t0 < 30_000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  change(); // the job runs: it has not read its doc yet
  writeFileSync(join(dir, "go"), "");
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `R <name> --doc d2.txt --text t.txt` from `dir`, its files written. */
function task(dir: string, waiting: Waiting, name = "top"): string[] {
  writeFileSync(join(dir, "d2.txt"), "orig\n");
  writeFileSync(join(dir, "t.txt"), "T\n");
  const wf = slowWorkflow(dir, waiting);
  return ["workflow", "task", wf, name, "--doc", "d2.txt", "--text", "t.txt"];
}

/** The paths of the jobs of task `name` (each has an `.info`) in the store under `home`. */
function jobsOf(home: string, name: string): string[] {
  const dir = join(home, "var", "jobs", "R", name);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith(".info")).map((f) => join(dir, f.slice(0, -5)));
}

/** `R top … --deploy local --cpus 1` (one worker runs both jobs), `change` made while `waiting` runs. */
async function changedWhileRunning(dir: string, change: () => void, waiting: Waiting = "slow") {
  const args = task(dir, waiting);
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const home = join(dir, "home");
  const r = await whileSlowRuns(
    dir,
    [...args, "--deploy", "local", "--cpus", "1", "--print-path"],
    { SCOUT_HOME: home, TMPDIR: tmp },
    change,
  );
  return { ...r, home, tmp, args };
}

/** The `scout-ai:` lines of a run's stderr. */
const scoutLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("scout-ai:"));

/**
 * The one job of `name` failed, unstored, for the reason `why` (a pattern of
 * its message): said on stderr and recorded in its `.info`. The run's saved
 * files are gone from its `TMPDIR`, and no warning offered them.
 */
function failedUnstored(
  r: { code: number; stderr: string; home: string; tmp: string },
  name: string,
  why: RegExp,
): string {
  assert.equal(r.code, 1, r.stderr);
  const [job, ...more] = jobsOf(r.home, name);
  assert.ok(job !== undefined && more.length === 0, r.stderr);
  assert.ok(!existsSync(job), "no result stored");
  const info = readInfo(job)!;
  assert.equal(info.status, "error");
  assert.match(String((info.messages as string[]).at(-1)), why);
  assert.ok(scoutLines(r.stderr).some((l) => why.test(l)), r.stderr);
  assert.deepEqual(scoutLines(r.stderr).filter((l) => l.includes("warning")), []);
  assert.deepEqual(readdirSync(r.tmp), [], "the run's saved files removed");
  return job;
}

/** The message of a job whose `--doc` file changed while it ran (`how`: "replaced or edited"…). */
function changed(doc: string, how: string): string {
  return `the input file "${doc}" (--doc) changed while the job ran (${how})`;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

Deno.test("local deploy: the file read replaced by a rename while its job runs: the job fails unstored, its .info saying which input changed; a rerun computes from the file as it is then, as a serial run does (R122-1)", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d2.txt");
  const r = await changedWhileRunning(d.path, () => {
    writeFileSync(join(d.path, "d2.new"), "new\n");
    renameSync(join(d.path, "d2.new"), doc);
  });
  const why = new RegExp(
    escape(`${changed(doc, "replaced or edited")}: its result is not stored; run it again`),
  );
  const failed = failedUnstored(r, "slow", why);
  assert.deepEqual(readInfo(failed)!.inputs, [doc, "T\n"], "given the file as named");
  assert.deepEqual(jobsOf(r.home, "top"), [], "its dependent never ran");
  // the same command again: the file as it is now, another job (its name digests other bytes)
  const again = await runScout([...r.args, "--deploy", "local", "--print-path"], {
    cwd: d.path,
    env: { SCOUT_HOME: r.home, TMPDIR: r.tmp, NO_COLOR: "1" },
  });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(again.stdout.trim(), "utf8"), "top:doc=new text=T doc=new");
  const serial = await runScout([...r.args, "--print-path"], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "serial"), NO_COLOR: "1" },
  });
  assert.equal(serial.code, 0, serial.stderr);
  assert.equal(
    serial.stdout.trim().replace(join(d.path, "serial"), "H"),
    again.stdout.trim().replace(r.home, "H"),
  );
  const slow = (readInfo(again.stdout.trim())!.dependencies as string[])[0]!;
  assert.notEqual(slow, failed, "the job of the new bytes");
  assert.equal(readFileSync(slow, "utf8"), "doc=new text=T");
});

Deno.test("local deploy: the file read removed while its job runs: the job fails naming the change, not only ENOENT (R122-1)", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d2.txt");
  const r = await changedWhileRunning(d.path, () => rmSync(doc));
  failedUnstored(
    r,
    "slow",
    new RegExp(`${escape(changed(doc, "removed"))}, and the task failed: .*ENOENT.*; run it again`),
  );
});

Deno.test("local deploy: the file read moved away, edited to the same size, and moved back while its job runs: its modification time tells, the job fails unstored (R122-1)", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d2.txt");
  const r = await changedWhileRunning(d.path, () => {
    renameSync(doc, join(d.path, "d2.away"));
    writeFileSync(join(d.path, "d2.away"), "ORIG\n"); // the same inode, the same size
    renameSync(join(d.path, "d2.away"), doc);
  });
  failedUnstored(r, "slow", new RegExp(escape(changed(doc, "replaced or edited"))));
});

Deno.test("local deploy: one worker runs a job and its dependent, both given the file as named: the dependency, done before the change, is stored; the dependent it changed under fails (R122-1)", async () => {
  await using d = await tempDir();
  const doc = join(d.path, "d2.txt");
  const r = await changedWhileRunning(d.path, () => {
    writeFileSync(join(d.path, "d2.new"), "new\n");
    renameSync(join(d.path, "d2.new"), doc);
  }, "top");
  failedUnstored(r, "top", new RegExp(escape(changed(doc, "replaced or edited"))));
  const [slow] = jobsOf(r.home, "slow");
  assert.equal(readFileSync(slow!, "utf8"), "doc=orig text=T");
  assert.equal(readInfo(slow!)!.status, "done");
});

Deno.test("slurm deploy: a batch job's worker given the file as named fails unstored when the file is replaced while the job runs (R122-1)", async () => {
  await using d = await tempDir();
  const args = task(d.path, "slow", "slow");
  const env = { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" };
  const sub = await runScout([...args, "--deploy", "slurm", "--json"], {
    cwd: d.path,
    env: { ...env, PATH: `${standInSlurm(d.path)}:${process.env.PATH}` },
  });
  assert.equal(sub.code, 0, sub.stderr);
  const unit = JSON.parse(sub.stdout).units[0];
  const batch = readFileSync(join(unit.batchDir, "command.batch"), "utf8");
  const saved = /--deploy-inputs (\S+)/.exec(batch)![1]!;
  // the batch job's worker, as its script runs it
  const worker = await whileSlowRuns(
    d.path,
    [...args, "--deploy-inputs", saved, "--deploy-job", unit.path],
    env,
    () => {
      writeFileSync(join(d.path, "d2.new"), "new\n");
      renameSync(join(d.path, "d2.new"), join(d.path, "d2.txt"));
    },
  );
  assert.equal(worker.code, 1, worker.stderr);
  const why = changed(join(d.path, "d2.txt"), "replaced or edited");
  assert.ok(scoutLines(worker.stderr).some((l) => l.includes(why)), worker.stderr);
  assert.ok(!existsSync(unit.path), "no result stored");
  const info = readInfo(unit.path)!;
  assert.equal(info.status, "error");
  assert.ok(String((info.messages as string[]).at(-1)).includes(why));
  assert.deepEqual(info.inputs, [join(d.path, "d2.txt"), "T\n"]);
});
