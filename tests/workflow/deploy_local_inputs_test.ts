/**
 * `--deploy local` (R109-1): a worker started after the files the inputs
 * name were edited or removed builds the job from the links and copies saved
 * when the run began (`--deploy-inputs`), so it computes the inputs the job's
 * name was digested from, as does a worker that built it before (R114-2);
 * they go when the run ends, unless a job's `.info` names one (R118-2: a link
 * edited in place names no saved bytes). A file the task reads is
 * hard-linked: edited in place, the saved bytes changed too, and the next job
 * is not run. Where it can be neither linked nor copied, it is warned about.
 * The job's info records the inputs as typed, as a serial run's does.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { otherFileSystem } from "../support/other_fs.ts";
import { readInfo } from "./cli_support.ts";

/**
 * `Two/top` after `x` and `y`, both after `gate` (which writes
 * `<dir>/started` and waits for `<dir>/go`); every task but the gate takes
 * `text` (read from the file it names), so its job's name digests it; `top`
 * also reads its `doc` file. With two CPUs, `y` starts a second worker
 * once the gate is done.
 */
function twoWorkflow(dir: string): string {
  const started = JSON.stringify(join(dir, "started"));
  const go = JSON.stringify(join(dir, "go"));
  mkdirSync(join(dir, "Two"), { recursive: true });
  writeFileSync(
    join(dir, "Two", "workflow.ts"),
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
const text = (api: any) => api.input.text({ required: true });
export default (api: any) => api.workflow("Two", { tasks: {
  gate: { type: "string", run: async () => {
    writeFileSync(${started}, "");
    for (let i = 0; i < 600 && !existsSync(${go}); i++) await new Promise((r) => setTimeout(r, 50));
    return "open";
  } },
  x: { type: "string", deps: ["gate"], inputs: { text: text(api) }, run: ({ text }: any) => "x " + text.trim() },
  y: { type: "string", deps: ["gate"], inputs: { text: text(api) }, run: ({ text }: any) => "y " + text.trim() },
  top: { type: "string", deps: ["x", "y"], inputs: { text: text(api), doc: api.input.file() },
    run: async ({ doc }: any, job: any) =>
      (await job.load("x")) + ", " + (await job.load("y")) + ", " + readFileSync(doc, "utf8").trim() },
} });
`,
  );
  return join(dir, "Two");
}

/** Runs `Two/top` with `--deploy local --cpus N` (2), `change` acting once the gate runs. */
async function deployThenChange(dir: string, change: () => void, cpus = "2") {
  const wf = twoWorkflow(dir);
  writeFileSync(join(dir, "q.txt"), "A\n");
  writeFileSync(join(dir, "d.txt"), "doc A\n");
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const args = ["workflow", "task", wf, "top", "--text", "q.txt", "--doc", "d.txt"];
  const child = spawnScout([...args, "--deploy", "local", "--cpus", cpus, "--print-path"], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), TMPDIR: tmp },
    stdin: "inherit",
  });
  const t0 = Date.now();
  while (!existsSync(join(dir, "started")) && Date.now() - t0 < 30_000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  change();
  writeFileSync(join(dir, "go"), "");
  const out = await child.output();
  const dec = new TextDecoder();
  return {
    code: out.code,
    path: dec.decode(out.stdout).trim(),
    stderr: dec.decode(out.stderr),
    tmp,
  };
}

/** The saved files of the run under `tmp` (its `TMPDIR`): `<n>/<basename>` → path. */
function savedFiles(tmp: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const run of readdirSync(tmp)) {
    for (const dir of readdirSync(join(tmp, run))) {
      const files = join(tmp, run, dir, "files");
      if (!existsSync(files)) continue;
      for (const n of readdirSync(files)) {
        for (const f of readdirSync(join(files, n))) out.set(`${n}/${f}`, join(files, n, f));
      }
    }
  }
  return out;
}

/** The run's saved files are gone from its `TMPDIR`, and no warning offered them (R118-2). */
function nothingKept(r: { stderr: string; tmp: string }): void {
  assert.deepEqual(r.stderr.split("\n").filter((l) => l.startsWith("scout-ai: warning:")), []);
  assert.deepEqual(readdirSync(r.tmp), [], "the run's saved files removed");
}

/**
 * The file the task read in place of `doc`, replaced or removed during the
 * run, is the saved link the job's `.info` names: kept after the run, and
 * said where, once (R114-2). A value's file (`q.txt`) names nothing there.
 */
function keptForTheJob(
  r: { stderr: string; tmp: string },
  info: Record<string, unknown>,
  doc: string,
): void {
  const read = (info.inputs as string[])[1]!;
  assert.ok(read.startsWith(r.tmp + "/scout-ai-inputs-"), read);
  assert.equal(readFileSync(read, "utf8"), "doc A\n", "kept after the run");
  const warnings = r.stderr.split("\n").filter((l) => l.startsWith("scout-ai: warning:"));
  const run = readdirSync(r.tmp);
  assert.equal(run.length, 1);
  assert.deepEqual(warnings, [
    `scout-ai: warning: input file "${doc}" (--doc) changed during the run: the jobs built since ` +
    `were given the file saved at submission, ${read}, which their .info (and a result made of ` +
    `its path) names; it is kept (remove ${join(r.tmp, run[0]!)} when done with them)`,
  ]);
}

Deno.test("local deploy: input files edited once the run began (a value's file in place, the file read replaced): a later worker computes the inputs submitted (R109-1)", async () => {
  await using d = await tempDir();
  const r = await deployThenChange(d.path, () => {
    // the file the task reads is saved by a hard link: the same inode, no byte copied
    const saved = savedFiles(join(d.path, "tmp"));
    assert.equal(statSync(saved.get("1/d.txt")!).ino, statSync(join(d.path, "d.txt")).ino);
    assert.notEqual(statSync(saved.get("0/q.txt")!).ino, statSync(join(d.path, "q.txt")).ino);
    writeFileSync(join(d.path, "q.txt"), "B\n");
    writeFileSync(join(d.path, "d.new"), "doc B\n"); // as editors write: a new file renamed over
    renameSync(join(d.path, "d.new"), join(d.path, "d.txt"));
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "x A, y A, doc A");
  const info = readInfo(r.path)!;
  assert.deepEqual(info.provided_inputs, { text: "q.txt", doc: "d.txt" });
  keptForTheJob(r, info, join(d.path, "d.txt"));
  // the same job as a serial run of the same files
  writeFileSync(join(d.path, "q.txt"), "A\n");
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  const serial = await runScout(
    ["workflow", "task", join(d.path, "Two"), "top", "--text", "q.txt", "--doc", "d.txt"]
      .concat(["--print-path"]),
    { cwd: d.path, env: { SCOUT_HOME: join(d.path, "serial") } },
  );
  assert.equal(serial.code, 0, serial.stderr);
  assert.equal(
    serial.stdout.trim().replace(join(d.path, "serial"), "HOME"),
    r.path.replace(join(d.path, "home"), "HOME"),
  );
  const sInfo = readInfo(serial.stdout.trim())!;
  assert.deepEqual(info.provided_inputs, sInfo.provided_inputs);
  assert.deepEqual((info.inputs as unknown[])[0], (sInfo.inputs as unknown[])[0]);
});

Deno.test("local deploy: a worker given the file read as named, replaced after, builds its job again from the saved link before the next job (R114-2)", async () => {
  await using d = await tempDir();
  // one CPU: the one worker built its job before the change, and runs top after it
  const r = await deployThenChange(d.path, () => {
    writeFileSync(join(d.path, "d.new"), "doc B\n");
    renameSync(join(d.path, "d.new"), join(d.path, "d.txt"));
  }, "1");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "x A, y A, doc A");
  keptForTheJob(r, readInfo(r.path)!, join(d.path, "d.txt"));
});

Deno.test("local deploy: the file the task reads edited in place once the run began: the next job is not run, said in one line (R109-1)", async () => {
  await using d = await tempDir();
  const r = await deployThenChange(d.path, () => {
    writeFileSync(join(d.path, "d.txt"), "doc B\n"); // the saved link's bytes too
  });
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.split("\n").filter((l) => l.includes("changed since submission"));
  assert.equal(lines.length, 1, r.stderr);
  const m = new RegExp(
    `^scout-ai: Job "Two/[xy]/\\S+" failed: the input file "${join(d.path, "d.txt")}" ` +
      "\\(--doc\\) changed since submission \\(edited in place: the hard link saved then " +
      "shares its bytes\\) \\((\\S+)\\)$",
  ).exec(lines[0]!);
  assert.ok(m, lines[0]);
  // the job not run records why
  const info = readInfo(m[1]!)!;
  assert.equal(info.status, "error");
  assert.match(JSON.stringify(info.messages), /\(--doc\) changed since submission/);
  assert.equal(r.path, "", "no result of other bytes");
  nothingKept(r);
});

Deno.test("local deploy, one CPU: the file the task reads grown in place during a job: the next is not run, and the run's saved files go unwarned: no job was given them (R118-2)", async () => {
  await using d = await tempDir();
  const r = await deployThenChange(d.path, () => {
    appendFileSync(join(d.path, "d.txt"), "more\n"); // the saved link's bytes too
  }, "1");
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /\(--doc\) changed since submission \(edited in place/);
  assert.equal(r.path, "");
  nothingKept(r);
});

Deno.test("local deploy: the file read replaced once every job reading it was built: no .info names the saved link, so it goes unwarned (R118-2)", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "Late"));
  const started = JSON.stringify(join(d.path, "started"));
  const go = JSON.stringify(join(d.path, "go"));
  writeFileSync(
    join(d.path, "Late", "workflow.ts"),
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
export default (api: any) => api.workflow("Late", { tasks: {
  read: { type: "string", inputs: { doc: api.input.file() },
    run: ({ doc }: any) => readFileSync(doc, "utf8").trim() },
  gate: { type: "string", deps: ["read"], run: async () => {
    writeFileSync(${started}, "");
    for (let i = 0; i < 600 && !existsSync(${go}); i++) await new Promise((r) => setTimeout(r, 50));
    return "open";
  } },
  top: { type: "string", deps: ["gate"], run: (_: any, job: any) => job.load("read") },
} });
`,
  );
  writeFileSync(join(d.path, "d.txt"), "doc A\n");
  const tmp = join(d.path, "tmp");
  mkdirSync(tmp);
  const child = spawnScout(
    ["workflow", "task", join(d.path, "Late"), "top", "--doc", "d.txt"]
      .concat(["--deploy", "local", "--cpus", "1"]),
    { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), TMPDIR: tmp }, stdin: "inherit" },
  );
  const t0 = Date.now();
  while (!existsSync(join(d.path, "started")) && Date.now() - t0 < 30_000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  writeFileSync(join(d.path, "d.new"), "doc B\n"); // read is done: top, built again, reads none
  renameSync(join(d.path, "d.new"), join(d.path, "d.txt"));
  writeFileSync(join(d.path, "go"), "");
  const out = await child.output();
  const r = { stderr: new TextDecoder().decode(out.stderr), tmp };
  assert.equal(out.code, 0, r.stderr);
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "doc A");
  nothingKept(r);
});

Deno.test("local deploy: input files removed once the run began: a later worker computes the inputs submitted (R109-1)", async () => {
  await using d = await tempDir();
  const r = await deployThenChange(d.path, () => {
    rmSync(join(d.path, "q.txt"));
    rmSync(join(d.path, "d.txt"));
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "x A, y A, doc A");
  keptForTheJob(r, readInfo(r.path)!, join(d.path, "d.txt"));
});

Deno.test("local deploy: a file the task reads, too large to copy, that cannot be linked into TMPDIR (another file system): recorded, warned about once, not copied (R109-1)", async () => {
  await using d = await tempDir();
  await using tmp = await otherFileSystem("8m"); // a copy would not fit
  mkdirSync(join(d.path, "Big"));
  writeFileSync(
    join(d.path, "Big", "workflow.ts"),
    `import { closeSync, openSync, readSync } from "node:fs";
export default (api: any) => api.workflow("Big", { tasks: {
  head: { type: "string", inputs: { bam: api.input.file() }, run: ({ bam }: any) => {
    const buf = new Uint8Array(3), fd = openSync(bam, "r");
    readSync(fd, buf, 0, 3, 0);
    closeSync(fd);
    return new TextDecoder().decode(buf) + " of " + bam;
  } },
} });
`,
  );
  const bam = join(d.path, "reads.bam");
  writeFileSync(bam, "BAM");
  truncateSync(bam, 1.25 * 2 ** 30); // sparse: no disk taken; more than COPY_LIMIT
  const r = await runScout(
    ["workflow", "task", join(d.path, "Big"), "head", "--bam", "reads.bam", "--deploy", "local"],
    { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), TMPDIR: tmp.path } },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), `BAM of ${bam}`, "the worker read the file itself");
  const warnings = r.stderr.split("\n").filter((l) => l.startsWith("scout-ai: warning:"));
  assert.deepEqual(warnings.map((w) => w.replace(/\/scout-ai-inputs-\w+:/, "/RUN:")), [
    `scout-ai: warning: input file "${bam}" (--bam) is not saved for the workers: 1.3 GiB, ` +
    `more than the 256 MiB a copy may take, and it cannot be hard-linked into ${tmp.path}/RUN: ` +
    "it is on another file system (EXDEV); a worker that finds it changed stops",
  ]);
  assert.deepEqual(readdirSync(tmp.path), [], "nothing copied, and the run's directory gone");
});

Deno.test("local deploy: a value's file over a MiB is copied whole: the job computes every byte of it (R109-1)", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "Len"));
  writeFileSync(
    join(d.path, "Len", "workflow.ts"),
    `export default (api: any) => api.workflow("Len", { tasks: {
  len: { type: "string", inputs: { text: api.input.text() },
    run: ({ text }: any) => text.length + " " + text.slice(-4) },
} });
`,
  );
  // copied a MiB at a time: each MiB must land after the one before
  writeFileSync(join(d.path, "q.txt"), "a".repeat(2 ** 20) + "b".repeat(2 ** 20) + "cend");
  const r = await runScout(
    ["workflow", "task", join(d.path, "Len"), "len", "--text", "q.txt", "--deploy", "local"],
    { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), TMPDIR: d.path } },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), `${2 ** 21 + 4} cend`);
});
