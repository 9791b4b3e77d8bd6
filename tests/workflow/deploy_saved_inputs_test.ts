/**
 * The input files `--deploy slurm` saves for its batch jobs, on the command
 * line (R109-1): a dry run's script shows how they would be saved (linked,
 * copied, or only recorded and warned about) and the batch commands name
 * them (`--deploy-inputs`); a worker that cannot build the job it was sent
 * says why in one line and records the error in that job's `.info`, which no
 * longer says `waiting`; `workflow batch clean` removes the saved files no
 * batch job left names.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { otherFileSystem } from "../support/other_fs.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";
import { standInSlurm } from "./deploy_fixtures.ts";

const SAY = `export default (api) => api.workflow("Say", { tasks: {
  echo: { type: "string", inputs: { text: api.input.text() }, run: ({ text }) => text.trim() } } });`;

/** `workflow task <Say> echo --text q.txt …args` in `dir` (its home too). */
function say(dir: string, args: string[], extra: Record<string, string> = {}) {
  const wf = join(dir, "workflows", "Say");
  return runMain(["workflow", "task", wf, "echo", "--text", "q.txt", ...args], {
    cwd: dir,
    env: { ...env(dir), ...extra },
  });
}

Deno.test("slurm --dry-run: the script saves the input files first, the batch command names them; nothing is written", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Say", SAY);
  writeFileSync(join(d.path, "q.txt"), "Question A\n");
  const r = await say(d.path, ["--deploy", "slurm", "--dry-run"], { PATH: "/nonexistent" });
  assert.equal(r.code, 0, r.stderr);
  const saved = new RegExp(
    `^cp -- ${join(d.path, "q.txt")} (${join(d.path, "var/batch/inputs")}/[0-9a-f]{32})` +
      "/files/0/q\\.txt$",
    "m",
  ).exec(r.stdout);
  assert.ok(saved, r.stdout);
  assert.ok(r.stdout.includes(`printf '%s\\n' '{"version":2,"files":[{"input":"text"`));
  assert.match(r.stdout, new RegExp(`--deploy-inputs ${saved[1]} --deploy-job \\S+/Say/echo/`));
  assert.ok(r.stdout.indexOf(saved[0]) < r.stdout.indexOf("sbatch --parsable"));
  const syntax = await new Deno.Command("bash", { args: ["-n", "-c", r.stdout] }).output();
  assert.equal(syntax.code, 0);
  assert.ok(!existsSync(join(d.path, "var/batch")), "a dry run saves nothing");
});

const READ = `export default (api) => api.workflow("Read", { tasks: {
  head: { type: "string", inputs: { doc: api.input.file(), bam: api.input.file() },
    run: ({ doc }) => doc } } });`;

Deno.test("slurm --dry-run: a file the task reads would be hard-linked; with the batch directory on another file system, copied up to the limit, or only recorded and warned about; nothing is written", async () => {
  await using d = await tempDir();
  await using other = await otherFileSystem("1m");
  const wf = userWorkflow(d.path, "Read", READ);
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  const bam = join(d.path, "reads.bam");
  writeFileSync(bam, "BAM");
  truncateSync(bam, 40 * 2 ** 30); // sparse: 40 GiB of nothing
  const head = ["workflow", "task", wf, "head", "--doc", "d.txt", "--bam", "reads.bam"];
  const dry = (extra: string[]) =>
    runMain([...head, "--deploy", "slurm", "--dry-run", ...extra], {
      cwd: d.path,
      env: { ...env(d.path), PATH: "/nonexistent" },
    });
  const same = await dry([]);
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stderr, "");
  const inputs = join(d.path, "var/batch/inputs");
  for (const [n, f] of [[0, "d.txt"], [1, "reads.bam"]] as const) {
    const line = new RegExp(`^ln -L -- ${join(d.path, f)} ${inputs}/[0-9a-f]{32}/files/${n}/`, "m");
    assert.match(same.stdout, line);
  }
  assert.ok(!existsSync(join(d.path, "var/batch")), "a dry run saves nothing");

  const apart = await dry(["--batch-dir", other.path]);
  assert.equal(apart.code, 0, apart.stderr);
  const at = join(other.path, "inputs");
  assert.match(
    apart.stdout,
    new RegExp(`^cp -- ${join(d.path, "d.txt")} ${at}/\\w+/files/0/`, "m"),
  );
  assert.match(apart.stdout, new RegExp(`^# not saved \\(recorded\\): ${bam}$`, "m"));
  assert.ok(!apart.stdout.includes("files/1/"), apart.stdout);
  assert.equal(
    apart.stderr,
    `scout-ai: warning: input file "${bam}" (--bam) is not saved for the workers: 40 GiB, ` +
      `more than the 256 MiB a copy may take, and it cannot be hard-linked into ${at}: it is ` +
      "on another file system; a worker that finds it changed stops\n",
  );
  const syntax = await new Deno.Command("bash", { args: ["-n", "-c", apart.stdout] }).output();
  assert.equal(syntax.code, 0);
  assert.deepEqual(readdirSync(other.path), []);
});

/** The path a deploy would give the job (a dry run's `--json`), its info written `waiting`. */
async function submitted(dir: string): Promise<string> {
  const r = await say(dir, ["--deploy", "slurm", "--dry-run", "--json"], { PATH: "/nonexistent" });
  assert.equal(r.code, 0, r.stderr);
  const path = JSON.parse(r.stdout).path as string;
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path + ".info", JSON.stringify({ status: "waiting", batch_job: 7 }));
  return path;
}

Deno.test("a worker sent a job its inputs no longer make says why in one line and records the error, not waiting (R109-1)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Say", SAY);
  writeFileSync(join(d.path, "q.txt"), "Question A\n");
  const path = await submitted(d.path);
  writeFileSync(join(d.path, "q.txt"), "Question B\n");
  const r = await say(d.path, ["--deploy-job", path]);
  assert.equal(r.code, 1);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0]!,
    /^scout-ai: Job "\S+" is not in the graph of Say\/echo\/Default_\w+: the job its inputs make now is not the one submitted \(did its workflow, or a file or directory an input names, change since\?\)$/,
  );
  const info = readInfo(path)!;
  assert.equal(info.status, "error");
  assert.equal(info.batch_job, 7, "the batch job stays recorded");
  assert.match(JSON.stringify(info.messages), /is not the one submitted/);
  // a job that is not waiting (another process's) is left as it is
  writeFileSync(path + ".info", JSON.stringify({ status: "started", pid: 1 }));
  assert.equal((await say(d.path, ["--deploy-job", path])).code, 1);
  assert.equal(readInfo(path)!.status, "started");
});

Deno.test("a worker whose saved input files are gone says so and records the error in its jobs (R109-1)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Say", SAY);
  writeFileSync(join(d.path, "q.txt"), "Question A\n");
  const path = await submitted(d.path);
  const gone = join(d.path, "var/batch/inputs", "0".repeat(32));
  const r = await say(d.path, ["--deploy-inputs", gone, "--deploy-job", path]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^scout-ai: The input files saved when the job was submitted cannot be read: "\S+inputs\.json": .*\(was \S+ removed since\?\)\n$/,
  );
  const info = readInfo(path)!;
  assert.equal(info.status, "error");
  assert.match(JSON.stringify(info.messages), /saved when the job was submitted cannot be read/);
  // only a deploy's workers take it
  const usage = await say(d.path, ["--deploy-inputs", gone]);
  assert.equal(usage.code, 2);
});

Deno.test("batch clean: removes the saved input files no batch job left names (R109-1)", async () => {
  await using d = await tempDir();
  const base = join(d.path, "var/batch");
  const named = join(base, "inputs", "a".repeat(32));
  const unnamed = join(base, "inputs", "b".repeat(32));
  for (const dir of [named, unnamed]) mkdirSync(dir, { recursive: true });
  const past = new Date(Date.now() - 2 * 3600_000);
  for (const dir of [named, unnamed]) utimesSync(dir, past, past);
  const live = join(base, "SLURM_scout_job-Say-echo-Default-12345678");
  mkdirSync(live);
  writeFileSync(join(live, "command.batch"), `x --deploy-inputs ${named} --deploy-job y\n`);
  writeFileSync(join(live, "job.id"), "5\n");
  const bin = standInSlurm(d.path);
  writeFileSync(join(d.path, "sbatch.map"), `5 ${live}\n`); // no exit.status: RUNNING
  const r = await runMain(["workflow", "batch", "clean", "--json"], {
    cwd: d.path,
    env: { ...env(d.path), PATH: `${bin}:${process.env.PATH}`, SQ_STATE: "FILES" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).removed, [unnamed]);
  assert.deepEqual(readdirSync(join(base, "inputs")), ["a".repeat(32)]);
  assert.ok(readFileSync(join(live, "command.batch"), "utf8").includes(named));
});
