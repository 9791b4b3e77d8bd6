/**
 * `--deploy slurm` on the real single-node SLURM (R109-1): the files a job's
 * inputs name are saved at submission (a file the task reads by a hard link),
 * so a batch job that starts after they were replaced or removed computes the
 * inputs its name was digested from; a batch job that cannot build or run the
 * job it was submitted for (a path input changed, the linked file edited in
 * place) says why in one line and records the error in that job's `.info`
 * (never `waiting`); one whose file is replaced while it runs fails unstored
 * (R122-1).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { slurmEnv, waitUntil } from "./slurm_support.ts";

/**
 * `Read/echo` (inputs `text`, read from the file it names, `doc`, a file
 * read at run time, and `where`, a path) after `Read/gate`, which writes
 * `<dir>/started` and waits for `<dir>/go`.
 */
function readWorkflow(dir: string): string {
  const started = JSON.stringify(join(dir, "started"));
  const go = JSON.stringify(join(dir, "go"));
  mkdirSync(join(dir, "Read"), { recursive: true });
  writeFileSync(
    join(dir, "Read", "workflow.ts"),
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
export default (api: any) => api.workflow("Read", { tasks: {
  gate: { type: "string", run: async () => {
    writeFileSync(${started}, "");
    for (let i = 0; i < 1200 && !existsSync(${go}); i++) await new Promise((r) => setTimeout(r, 100));
    return "open";
  } },
  echo: { type: "string", deps: ["gate"],
    inputs: { text: api.input.text(), doc: api.input.file(), where: api.input.path() },
    run: ({ text, doc }: any) => text.trim() + " | " + readFileSync(doc, "utf8").trim() },
} });
`,
  );
  return join(dir, "Read");
}

interface Unit {
  path: string;
  slurmId: string;
  batchDir: string;
}

/**
 * Submits `Read/echo` (text from q.txt, doc d.txt), waits until the gate
 * runs, lets `change` act on the files, opens the gate and waits for the
 * echo's batch job to end.
 */
async function submitThenChange(
  d: string,
  extra: string[],
  change: () => void,
): Promise<{ unit: Unit; stderr: string; status: string }> {
  const slurm = await slurmEnv();
  const wf = readWorkflow(d);
  writeFileSync(join(d, "q.txt"), "Question A\n");
  writeFileSync(join(d, "d.txt"), "doc A\n");
  const sub = await runScout(
    ["workflow", "task", wf, "echo", "--text", "q.txt", "--doc", "d.txt", ...extra]
      .concat(["--deploy", "slurm", "--json"]),
    { env: { SCOUT_HOME: join(d, "home"), ...slurm }, cwd: d },
  );
  assert.equal(sub.code, 0, sub.stderr);
  const units = JSON.parse(sub.stdout).units as Unit[];
  assert.equal(units.length, 2, sub.stdout);
  await waitUntil(() => existsSync(join(d, "started")), "the gate to run");
  change();
  writeFileSync(join(d, "go"), "");
  const unit = units[1]!;
  const status = join(unit.batchDir, "exit.status");
  await waitUntil(() => existsSync(status), "the echo batch job to end", 120_000);
  const stderr = readFileSync(join(unit.batchDir, "std.err"), "utf8");
  return { unit, stderr, status: readFileSync(status, "utf8").trim() };
}

const infoOf = (path: string) => JSON.parse(readFileSync(path + ".info", "utf8"));

Deno.test("slurm: input files edited after submission (a value's file in place, the file read replaced): the batch job computes the submitted inputs (R109-1)", async () => {
  await using t = await tempDir();
  const { unit, stderr, status } = await submitThenChange(t.path, [], () => {
    writeFileSync(join(t.path, "q.txt"), "Question B\n");
    writeFileSync(join(t.path, "d.new"), "doc B\n"); // as editors write: a new file renamed over
    renameSync(join(t.path, "d.new"), join(t.path, "d.txt"));
  });
  assert.equal(status, "0", stderr);
  assert.equal(readFileSync(unit.path, "utf8"), "Question A | doc A");
  const info = infoOf(unit.path);
  assert.equal(info.status, "done");
  // recorded as typed, as a serial run records it
  assert.equal(info.provided_inputs.text, "q.txt");
  assert.equal(info.provided_inputs.doc, "d.txt");
});

Deno.test("slurm: the file the task reads edited in place after submission (its hard link's bytes too): the batch job says so in one line and records the error (R109-1)", async () => {
  await using t = await tempDir();
  const { unit, stderr, status } = await submitThenChange(t.path, [], () => {
    writeFileSync(join(t.path, "d.txt"), "doc B\n");
  });
  assert.equal(status, "1");
  const lines = stderr.split("\n").filter((l) => l.startsWith("scout-ai: "));
  assert.equal(lines.length, 1, stderr);
  assert.ok(
    lines[0]!.includes(
      `the input file "${join(t.path, "d.txt")}" (--doc) changed since submission (edited in place`,
    ),
    stderr,
  );
  const info = infoOf(unit.path);
  assert.equal(info.status, "error");
  assert.match(JSON.stringify(info.messages), /\(--doc\) changed since submission/);
  assert.ok(!existsSync(unit.path));
});

Deno.test("slurm: input files removed after submission: the batch job computes the submitted inputs (R109-1)", async () => {
  await using t = await tempDir();
  const { unit, stderr, status } = await submitThenChange(t.path, [], () => {
    rmSync(join(t.path, "q.txt"));
    rmSync(join(t.path, "d.txt"));
  });
  assert.equal(status, "0", stderr);
  assert.equal(readFileSync(unit.path, "utf8"), "Question A | doc A");
  assert.equal(infoOf(unit.path).status, "done");
});

Deno.test("slurm: a batch job that cannot build its job says why in one line and records the error, not waiting (R109-1)", async () => {
  await using t = await tempDir();
  // a path input is passed as a path (not saved); an absolute one is digested by its content
  const where = join(t.path, "where.txt");
  writeFileSync(where, "here\n");
  const { unit, stderr, status } = await submitThenChange(t.path, ["--where", where], () => {
    writeFileSync(where, "elsewhere\n");
  });
  assert.equal(status, "1");
  const line = stderr.split("\n").find((l) => l.startsWith("scout-ai: ")) ?? "";
  assert.match(line, /changed since submission/, stderr);
  assert.ok(line.includes(where), line);
  const info = infoOf(unit.path);
  assert.equal(info.status, "error");
  assert.match(JSON.stringify(info.messages), /changed since submission/);
  assert.ok(!existsSync(unit.path));
});

Deno.test("slurm: the batch jobs get the file named, not the one saved: the result and .info are a serial run's (R114-2, R122-1)", async () => {
  await using t = await tempDir();
  const slurm = await slurmEnv();
  mkdirSync(join(t.path, "Show"));
  writeFileSync(
    join(t.path, "Show", "workflow.ts"),
    `export default (api: any) => api.workflow("Show", { tasks: {
  dep: { type: "string", inputs: { doc: api.input.file() }, run: ({ doc }: any) => "dep " + String(doc) },
  top: { type: "string", deps: ["dep"], inputs: { doc: api.input.file() },
    run: async ({ doc }: any, job: any) => "top " + String(doc) + " | " + (await job.load("dep")) },
} });
`,
  );
  const doc = join(t.path, "d.txt");
  writeFileSync(doc, "doc A\n");
  const run = (home: string, extra: string[]) =>
    runScout(["workflow", "task", join(t.path, "Show"), "top", "--doc", "d.txt", ...extra], {
      env: { SCOUT_HOME: join(t.path, home), ...slurm },
      cwd: t.path,
    });
  const serial = await run("serial", ["--print-path"]);
  assert.equal(serial.code, 0, serial.stderr);
  const batch = await run("batch", ["--deploy", "slurm", "--wait", "--print-path"]);
  assert.equal(batch.code, 0, batch.stderr);
  const [s, b] = [serial.stdout.trim(), batch.stdout.trim()];
  assert.equal(b.replace(join(t.path, "batch"), "H"), s.replace(join(t.path, "serial"), "H"));
  assert.equal(readFileSync(s, "utf8"), `top ${doc} | dep ${doc}`);
  assert.equal(readFileSync(b, "utf8"), readFileSync(s, "utf8"));
  assert.deepEqual(infoOf(b).inputs, [doc]);
  assert.deepEqual(infoOf(b).inputs, infoOf(s).inputs);
});

Deno.test("slurm: the file a batch job was given as named, replaced while the job runs: the job fails unstored, its .info saying which input changed (R122-1)", async () => {
  await using t = await tempDir();
  const slurm = await slurmEnv();
  const started = JSON.stringify(join(t.path, "started"));
  const go = JSON.stringify(join(t.path, "go"));
  mkdirSync(join(t.path, "Late"));
  writeFileSync(
    join(t.path, "Late", "workflow.ts"),
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
export default (api: any) => api.workflow("Late", { tasks: {
  late: { type: "string", inputs: { doc: api.input.file() }, run: async ({ doc }: any) => {
    writeFileSync(${started}, "");
    for (let i = 0; i < 1200 && !existsSync(${go}); i++) await new Promise((r) => setTimeout(r, 100));
    return readFileSync(doc, "utf8").trim();
  } },
} });
`,
  );
  const doc = join(t.path, "d.txt");
  writeFileSync(doc, "doc A\n");
  const sub = await runScout(
    ["workflow", "task", join(t.path, "Late"), "late", "--doc", "d.txt", "--deploy", "slurm"]
      .concat(["--json"]),
    { env: { SCOUT_HOME: join(t.path, "home"), ...slurm }, cwd: t.path },
  );
  assert.equal(sub.code, 0, sub.stderr);
  const [unit] = JSON.parse(sub.stdout).units as Unit[];
  await waitUntil(() => existsSync(join(t.path, "started")), "the job to run");
  writeFileSync(join(t.path, "d.new"), "doc B\n"); // as editors write: a new file renamed over
  renameSync(join(t.path, "d.new"), doc);
  writeFileSync(join(t.path, "go"), "");
  const status = join(unit!.batchDir, "exit.status");
  await waitUntil(() => existsSync(status), "the batch job to end", 120_000);
  const stderr = readFileSync(join(unit!.batchDir, "std.err"), "utf8");
  assert.equal(readFileSync(status, "utf8").trim(), "1", stderr);
  const why = `the input file "${doc}" (--doc) changed while the job ran (replaced or edited): ` +
    "its result is not stored";
  assert.ok(stderr.includes(why), stderr);
  assert.ok(!existsSync(unit!.path), "no result stored");
  const info = infoOf(unit!.path);
  assert.equal(info.status, "error");
  assert.ok((info.messages as string[]).some((m) => m.includes(why)), info.messages.join("\n"));
});
