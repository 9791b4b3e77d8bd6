/**
 * scout-ai used as a library never takes the host's signals nor exits the
 * process on its own (R105-1): a host's SIGTERM handler runs to its end and
 * the exit code is the host's; a job still running when the host exits is
 * recorded `aborted` and leaves no lock; a host that wants the CLI's handling
 * opts in with `handleInterrupts()` from `mod.ts`. Real apps importing
 * `mod.ts`, run by Deno (with the clone's `deno.json`) and by Bun, sending
 * themselves a real SIGTERM.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { readInfo } from "./cli_support.ts";

const BUN = join(ROOT, "tools", "node_modules", ".bin", "bun");

/**
 * An app running one job whose body sends the process SIGTERM, then waits
 * 30 s. `graceful`: the app's own SIGTERM handler writes `graceful.done`
 * after a timer, then exits 0. `optIn`: the app calls `handleInterrupts()`
 * and has no handler of its own.
 */
function app(dir: string, mode: "graceful" | "optIn"): string {
  const at = (name: string) => JSON.stringify(join(dir, name));
  return `
import process from "node:process";
import { writeFileSync } from "node:fs";
import { createJob, handleInterrupts, runJob, workflow } from ${
    JSON.stringify(join(ROOT, "mod.ts"))
  };
if (${JSON.stringify(mode)} === "optIn") handleInterrupts();
else {
  process.on("SIGTERM", () => {
    console.log("app: graceful shutdown started");
    setTimeout(() => { writeFileSync(${at("graceful.done")}, "yes"); process.exit(0); }, 300);
  });
}
const wf = workflow("SigApp", { jobsDir: ${at("jobs")}, tasks: { nap: { type: "string",
  run: async () => {
    process.kill(process.pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 30_000));
    return "ok";
  } } } });
const job = createJob(wf, "nap", { env: { SCOUT_HOME: ${at("home")} } });
writeFileSync(${at("job.path")}, job.path);
await runJob(job);
console.log("app: the job finished");
`;
}

async function runApp(
  runtime: "deno" | "bun",
  dir: string,
  mode: "graceful" | "optIn",
): Promise<Deno.CommandOutput & { stdout_: string; stderr_: string }> {
  const script = join(dir, "app.ts");
  writeFileSync(script, app(dir, mode));
  const [cmd, args] = runtime === "deno"
    ? [DENO, ["run", "-q", "-A", `--config=${join(ROOT, "deno.json")}`, script]]
    : [BUN, [script]];
  const out = await new Deno.Command(cmd, {
    args,
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home") },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { ...out, stdout_: dec.decode(out.stdout), stderr_: dec.decode(out.stderr) };
}

/** Every file under `dir` (none when it is missing). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => statSync(join(dir, name)).isFile());
}

for (const runtime of ["deno", "bun"] as const) {
  Deno.test(`library (${runtime}): the host's SIGTERM handler runs to its end and sets the exit code; the running job is recorded aborted, no lock left (R105-1)`, async () => {
    assert.ok(existsSync(BUN), `Bun is not installed (${BUN}): run tools/setup`);
    await using d = await tempDir();
    const out = await runApp(runtime, d.path, "graceful");
    const what = `stdout: ${out.stdout_}\nstderr: ${out.stderr_}`;
    assert.equal(out.code, 0, `the host's exit code (${what})`);
    assert.equal(out.signal, null, what);
    assert.equal(out.stdout_, "app: graceful shutdown started\n");
    assert.equal(readFileSync(join(d.path, "graceful.done"), "utf8"), "yes");
    const path = readFileSync(join(d.path, "job.path"), "utf8");
    const info = readInfo(path)!;
    assert.equal(info.status, "aborted", JSON.stringify(info));
    assert.deepEqual(info.messages, ["Aborted: interrupted by the process's exit"]);
    assert.equal(existsSync(path), false, "no result");
    assert.deepEqual(filesUnder(join(d.path, "home", "tmp", "persist_locks")), [], "no lock");
  });

  Deno.test(`library (${runtime}): handleInterrupts() from mod.ts opts in to the CLI's handling: the job aborted by SIGTERM, exit 143`, async () => {
    await using d = await tempDir();
    const out = await runApp(runtime, d.path, "optIn");
    const what = `stdout: ${out.stdout_}\nstderr: ${out.stderr_}`;
    assert.equal(out.code, 143, what);
    assert.equal(out.signal, null, `exited by the handler, not killed (${what})`);
    assert.equal(out.stdout_, "");
    const info = readInfo(readFileSync(join(d.path, "job.path"), "utf8"))!;
    assert.equal(info.status, "aborted", JSON.stringify(info));
    assert.deepEqual(info.messages, ["Aborted: interrupted by SIGTERM"]);
    assert.deepEqual(filesUnder(join(d.path, "home", "tmp", "persist_locks")), [], "no lock");
  });
}
