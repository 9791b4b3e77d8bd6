/**
 * A `file` input replaced or removed while the job reading it runs
 * (`--deploy local`, R117-1): the task was given the hard link saved at
 * submission, so it reads the bytes submitted — the bytes the job's name
 * digests — and the result stored under that name is the one a serial run
 * of them stores. The job's `.info` names the file as typed (it was the one
 * saved when the job was built), so no `.info` names the saved link, and the
 * run removes it unwarned; a job built after the change names the saved link,
 * which the run keeps and says so, truly: every job read it.
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
import { DENO, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
import { readInfo, userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

/**
 * `R/top` after `R/slow`; `slow` takes `doc` (a file) and `text`, writes
 * `<dir>/started`, waits for `<dir>/go`, and only then reads `doc`. With
 * `topDoc`, `top` takes `doc` too (and reads nothing of it).
 */
function slowWorkflow(dir: string, topDoc: boolean): string {
  const started = JSON.stringify(join(dir, "started"));
  const go = JSON.stringify(join(dir, "go"));
  return userWorkflow(
    dir,
    "R",
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
export default (api) => api.workflow("R", { tasks: {
  slow: { type: "string", inputs: { doc: api.input.file(), text: api.input.text() },
    run: async ({ doc, text }) => {
      writeFileSync(${started}, "");
      for (let i = 0; i < 600 && !existsSync(${go}); i++) await new Promise((r) => setTimeout(r, 50));
      return "doc=" + readFileSync(doc, "utf8").trim() + " text=" + text.trim();
    } },
  top: { type: "string", deps: ["slow"], ${topDoc ? "inputs: { doc: api.input.file() }, " : ""}
    run: async (_, job) => "top:" + (await job.load("slow")) },
} });
`,
  );
}

/** Runs scout with `args` in `dir` (a real subprocess), `change` made while `slow` runs. */
async function whileSlowRuns(
  dir: string,
  args: string[],
  env: Record<string, string>,
  change: () => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(DENO, {
    args: [...SCOUT_SOURCE_ARGS, ...args],
    cwd: dir,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const t0 = Date.now();
  while (!existsSync(join(dir, "started")) && Date.now() - t0 < 30_000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  change(); // slow runs: it has not read its doc yet
  writeFileSync(join(dir, "go"), "");
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `R top --doc d2.txt --text t.txt` from `dir`, its files written. */
function task(dir: string, topDoc: boolean, name = "top"): string[] {
  writeFileSync(join(dir, "d2.txt"), "orig\n");
  writeFileSync(join(dir, "t.txt"), "T\n");
  return [
    "workflow",
    "task",
    slowWorkflow(dir, topDoc),
    name,
    "--doc",
    "d2.txt",
    "--text",
    "t.txt",
  ];
}

/** `R top … --deploy local --cpus 1`, `change` made while `slow` runs. */
async function changedWhileRunning(dir: string, change: () => void, topDoc = false) {
  const args = task(dir, topDoc);
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const r = await whileSlowRuns(
    dir,
    [...args, "--deploy", "local", "--cpus", "1", "--print-path"],
    { SCOUT_HOME: join(dir, "home"), TMPDIR: tmp },
    change,
  );
  const path = r.stdout.trim();
  const slow = (readInfo(path)?.dependencies as string[] | undefined)?.[0] ?? "";
  return { code: r.code, path, slow, stderr: r.stderr, tmp, args };
}

/** The `slow` job a serial run of the submitted bytes makes: the same name, the same result. */
async function serialSlow(dir: string, args: string[], slow: string): Promise<void> {
  writeFileSync(join(dir, "d2.txt"), "orig\n");
  const serial = await runScout([...args, "--print-path"], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "serial"), NO_COLOR: "1" },
  });
  assert.equal(serial.code, 0, serial.stderr);
  const dep = (readInfo(serial.stdout.trim())!.dependencies as string[])[0]!;
  assert.equal(dep.replace(join(dir, "serial"), "H"), slow.replace(join(dir, "home"), "H"));
  assert.equal(readFileSync(dep, "utf8"), readFileSync(slow, "utf8"));
}

/** The run's saved files are gone from its `TMPDIR`, and no warning offered them. */
function nothingKept(r: { stderr: string; tmp: string }): void {
  assert.deepEqual(r.stderr.split("\n").filter((l) => l.startsWith("scout-ai:")), []);
  assert.deepEqual(readdirSync(r.tmp), [], "the run's saved files removed");
}

Deno.test("local deploy: the file read replaced by a rename while its job runs: the job reads the bytes submitted, as its name says (R117-1)", async () => {
  await using d = await tempDir();
  const r = await changedWhileRunning(d.path, () => {
    writeFileSync(join(d.path, "d2.new"), "new\n");
    renameSync(join(d.path, "d2.new"), join(d.path, "d2.txt"));
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "top:doc=orig text=T");
  assert.equal(readFileSync(r.slow, "utf8"), "doc=orig text=T");
  // built before the change: its .info names the file as typed, as a serial run's
  assert.deepEqual(readInfo(r.slow)!.inputs, [join(d.path, "d2.txt"), "T\n"]);
  nothingKept(r);
  await serialSlow(d.path, r.args, r.slow);
});

Deno.test("local deploy: the file read removed while its job runs: the job reads the bytes submitted (R117-1)", async () => {
  await using d = await tempDir();
  const r = await changedWhileRunning(d.path, () => rmSync(join(d.path, "d2.txt")));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "top:doc=orig text=T");
  assert.equal(readFileSync(r.slow, "utf8"), "doc=orig text=T");
  nothingKept(r);
  await serialSlow(d.path, r.args, r.slow);
});

Deno.test("local deploy: the file replaced while a job reads it, and a later job takes it too: that job's .info names the saved link, which is kept, and the warning says what every job read (R117-1)", async () => {
  await using d = await tempDir();
  const r = await changedWhileRunning(d.path, () => {
    writeFileSync(join(d.path, "d2.new"), "new\n");
    renameSync(join(d.path, "d2.new"), join(d.path, "d2.txt"));
  }, true);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "top:doc=orig text=T");
  const doc = join(d.path, "d2.txt");
  assert.deepEqual(readInfo(r.slow)!.inputs, [doc, "T\n"], "built before the change");
  const read = (readInfo(r.path)!.inputs as string[])[0]!;
  assert.equal(readFileSync(read, "utf8"), "orig\n", "built after: it names the saved link");
  const [run] = readdirSync(r.tmp);
  assert.ok(read.startsWith(join(r.tmp, run!) + "/"), read);
  assert.deepEqual(r.stderr.split("\n").filter((l) => l.startsWith("scout-ai:")), [
    `scout-ai: warning: input file "${doc}" (--doc) changed during the run: the jobs read the ` +
    `file saved at submission, ${read}, which the .info of those built since names; it is kept ` +
    `(remove ${join(r.tmp, run!)} when done with them)`,
  ]);
});

Deno.test("slurm deploy: a batch job's worker reads the bytes submitted though the file is replaced while the job runs (R117-1)", async () => {
  await using d = await tempDir();
  const args = task(d.path, false, "slow");
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
  assert.equal(worker.code, 0, worker.stderr);
  assert.equal(readFileSync(unit.path, "utf8"), "doc=orig text=T");
  assert.deepEqual(readInfo(unit.path)!.inputs, [join(d.path, "d2.txt"), "T\n"]);
});
