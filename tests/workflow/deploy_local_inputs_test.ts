/**
 * `--deploy local` (R109-1): a worker started after the files the inputs
 * name were edited or removed builds the job from the copies saved when the
 * run began (`--deploy-inputs`), so it computes the inputs the job's name was
 * digested from; the copies go when the run ends. The job's info records the
 * inputs as typed, as a serial run's does.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, runScout, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";
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

/** Runs `Two/top` with `--deploy local --cpus 2`, `change` acting once the gate runs. */
async function deployThenChange(dir: string, change: () => void) {
  const wf = twoWorkflow(dir);
  writeFileSync(join(dir, "q.txt"), "A\n");
  writeFileSync(join(dir, "d.txt"), "doc A\n");
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const args = ["workflow", "task", wf, "top", "--text", "q.txt", "--doc", "d.txt"];
  const child = new Deno.Command(DENO, {
    args: [...SCOUT_SOURCE_ARGS, ...args, "--deploy", "local", "--cpus", "2", "--print-path"],
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), TMPDIR: tmp, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
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

Deno.test("local deploy: input files edited once the run began: a later worker computes the inputs submitted (R109-1)", async () => {
  await using d = await tempDir();
  const r = await deployThenChange(d.path, () => {
    writeFileSync(join(d.path, "q.txt"), "B\n");
    writeFileSync(join(d.path, "d.txt"), "doc B\n");
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "x A, y A, doc A");
  const info = readInfo(r.path)!;
  assert.deepEqual(info.provided_inputs, { text: "q.txt", doc: "d.txt" });
  assert.deepEqual(readdirSync(r.tmp), [], "the saved copies go at the end");
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

Deno.test("local deploy: input files removed once the run began: a later worker computes the inputs submitted (R109-1)", async () => {
  await using d = await tempDir();
  const r = await deployThenChange(d.path, () => {
    rmSync(join(d.path, "q.txt"));
    rmSync(join(d.path, "d.txt"));
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(r.path, "utf8"), "x A, y A, doc A");
  assert.deepEqual(readdirSync(r.tmp), []);
});
