/**
 * Runs the test suite (`deno task test`: `suite.ts ARGS…` runs `deno ARGS…`)
 * and stops the test SLURM afterwards when the tests started it.
 *
 * The SLURM tests start a single-node cluster on demand (`tools/slurm-up`,
 * from `slurm_support.ts`, which marks a cluster it starts as the tests':
 * `<dir>/.owner`), and nothing in a test run knows when the last test file is
 * done with it; before this wrapper, `tools/deno task ok` left slurmctld,
 * slurmd and munged running. The rule: every suite run registers itself in
 * `<dir>/.suites/<pid>` (with its process's start time, so a reused pid does
 * not count); the last one to leave stops a cluster that is the tests'
 * (`tools/slurm-down`). A cluster without that mark (started by `.ci/run`,
 * or by hand) is never stopped. A suite that died without leaving (its
 * process is gone) no longer counts, and the next suite out stops what its
 * tests left. The registry's lock is `<dir>.lock`, beside the cluster's
 * directory: stopping the cluster removes that directory.
 *
 * A test file run without the wrapper (`deno test` directly) leaves the same
 * way: when its process ends, a watcher it started (`suite.ts --leave-after
 * <pid>`, in a session of its own) leaves on its behalf. Under the wrapper
 * (`SCOUT_SUITE_PID` set) the wrapper's own leave does it, and no watcher runs.
 *
 * `<dir>` is `$SCOUT_SLURM_DIR` or `/tmp/scout-slurm`, as for `tools/slurm-up`.
 * A registry that cannot be written (a directory of another user) only
 * costs the stop: the suite runs, with a warning.
 *
 * The wrapper also runs the tests in a `HOME` of their own (`suite_home.ts`,
 * R77-6): what they write into `~/.scout` (or a `SCOUT_HOME` the wrapper's
 * environment sets) fails the suite, with one line naming it and Deno's
 * summary line again with one more failure (the last such line is what
 * `.ci/run` counts). The suite's stdout passes through the wrapper for that.
 *
 * It builds the binary once for all test files (`build_binary.ts`), removed
 * when the suite ends.
 *
 * @module
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import {
  makeSuiteHome,
  removeSuiteHome,
  strayWrites,
  strayWritesLine,
  summaryWithFailure,
} from "./suite_home.ts";
import { buildBinaryAt, SHARED_BINARY_VAR } from "./build_binary.ts";

const ROOT = join(import.meta.dirname!, "..", "..");
/** Whether `/proc` can be read here (a test process, under `-P=test`, may not: Deno asks for -A). */
const PROC = (() => {
  try {
    return existsSync("/proc/self/stat");
  } catch {
    return false;
  }
})();

/**
 * A process's start time (`/proc/<pid>/stat` field 22), `""` when it runs but
 * its start time cannot be read, or null when it does not run.
 */
function startTime(pid: number): string | null {
  if (!PROC) {
    try {
      process.kill(pid, 0);
      return "";
    } catch (e) {
      return (e as { code?: string }).code === "EPERM" ? "" : null; // another user's: it runs
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // from field 3 on
    return fields[0] === "Z" ? null : fields[19] ?? "";
  } catch {
    return null;
  }
}

/** Whether every daemon of the cluster in `dir` runs (as `tools/slurm-up`'s `alive`). */
export function clusterUp(dir: string): boolean {
  return ["slurmctld", "slurmd", "munged"].every((d) => {
    try {
      return startTime(Number(readFileSync(join(dir, `${d}.pid`), "utf8").trim())) !== null;
    } catch {
      return false;
    }
  });
}

/** Runs `body` holding the registry's lock (`<dir>.lock`, never removed). */
async function locked<T>(dir: string, body: () => T | Promise<T>): Promise<T> {
  using file = await openLock(`${dir}.lock`);
  await file.lock(true);
  return await body();
}

/** The lock file, opened without `O_CREAT` when it exists (another user's, in a sticky `/tmp`). */
async function openLock(path: string): Promise<Deno.FsFile> {
  try {
    return await Deno.open(path, { read: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    return await Deno.open(path, { create: true, write: true });
  }
}

/** The registered users that still run, other than `self`; the dead ones are dropped. */
function othersRunning(registry: string, self: number): number[] {
  const live: number[] = [];
  for (const name of existsSync(registry) ? readdirSync(registry) : []) {
    if (!/^\d+$/.test(name) || Number(name) === self) continue;
    const started = readFileSync(join(registry, name), "utf8");
    const now = startTime(Number(name));
    // registered without a start time (a test process: no /proc there): that it runs is all
    if (now !== null && (started === "" || now === started)) live.push(Number(name));
    else rmSync(join(registry, name), { force: true });
  }
  return live;
}

const registryOf = (dir: string) => join(dir, ".suites");

/**
 * Registers this process as a user of the cluster: a suite run, or a test
 * process that uses the cluster (`slurm_support.ts`): no suite stops the
 * cluster while it runs. Nothing to undo: a registration whose process has
 * ended no longer counts.
 *
 * @param dir the cluster's directory
 */
export async function enter(dir: string): Promise<void> {
  await locked(dir, () => {
    mkdirSync(registryOf(dir), { recursive: true });
    writeFileSync(join(registryOf(dir), String(Deno.pid)), startTime(Deno.pid) ?? "");
  });
}

/**
 * The cluster's directory: `$SCOUT_SLURM_DIR` or `/tmp/scout-slurm`, absolute
 * and without a trailing slash (as `tools/slurm-up` makes it).
 *
 * @returns the path
 */
export function clusterDir(): string {
  return resolve(Deno.env.get("SCOUT_SLURM_DIR") || "/tmp/scout-slurm");
}

/** Runs `tools/slurm-down dir` in a session of its own (a Ctrl-C cannot cut it short). */
async function slurmDown(dir: string): Promise<boolean> {
  const script = join(ROOT, "tools", "slurm-down");
  const run = (cmd: string, args: string[]) =>
    new Deno.Command(cmd, { args, stdout: "null", stderr: "null", stdin: "null" }).output();
  try {
    return (await run("setsid", [script, dir])).success;
  } catch {
    return (await run(script, [dir])).success; // no setsid here
  }
}

/**
 * Unregisters a user of the cluster: this suite, or (a watcher's) a test
 * process that has ended. The last one out stops a cluster that is the tests'
 * (`tools/slurm-down`, which removes `dir`; a failed stop keeps the pid files
 * for the next one), or removes `dir` when it holds nothing but the registry.
 *
 * @param dir the cluster's directory
 * @param say where a stop is announced
 * @param pid whose registration ends (default: this process's)
 * @param as what that registration holds (a watcher's: the start time it
 *   recorded); another text is a new process's with the same pid, which stays
 * @returns what it did: `stopped`, `removed` or `left`
 */
export async function leave(
  dir: string,
  say: (line: string) => void = warn,
  pid = Deno.pid,
  as?: string,
): Promise<"stopped" | "removed" | "left"> {
  return await locked(dir, async () => {
    const registry = registryOf(dir);
    const entry = join(registry, String(pid));
    if (as !== undefined && existsSync(entry) && readFileSync(entry, "utf8") !== as) return "left";
    rmSync(entry, { force: true });
    if (othersRunning(registry, pid).length > 0 || !existsSync(dir)) return "left";
    const owner = existsSync(join(dir, ".owner"))
      ? readFileSync(join(dir, ".owner"), "utf8").trim()
      : "";
    if (owner === "tests") {
      say(`suite: stopping the test SLURM its tests started (tools/slurm-down ${dir})`);
      if (await slurmDown(dir)) return "stopped";
      say(`suite: tools/slurm-down ${dir} failed; the cluster's files are kept`);
      return "left";
    }
    if (!clusterUp(dir) && readdirSync(dir).every((n) => n === ".suites")) {
      rmSync(dir, { recursive: true, force: true });
      return "removed";
    }
    return "left";
  });
}

/**
 * Outside the wrapper (no running `SCOUT_SUITE_PID`): starts a watcher, in a
 * session of its own, that leaves on behalf of this process once it has
 * ended (`suite.ts --leave-after <pid>`), so that a test file run with `deno
 * test` directly stops the cluster its tests started, as the wrapper would.
 *
 * @param dir the cluster's directory
 * @returns false under a running wrapper or when `setsid` failed (whether
 *   the watcher then started is not confirmed)
 */
export async function leaveWhenEnded(dir: string): Promise<boolean> {
  const wrapper = Number(Deno.env.get("SCOUT_SUITE_PID") ?? "");
  if (wrapper > 0 && startTime(wrapper) !== null) return false; // it leaves for its tests
  const args = ["-f", Deno.execPath(), "run", "-q", "-A", import.meta.filename!];
  const out = await new Deno.Command("setsid", {
    args: [...args, "--leave-after", String(Deno.pid)],
    env: { SCOUT_SLURM_DIR: dir },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return out.success;
}

/**
 * The watcher of {@link leaveWhenEnded}: records `pid`'s start time in its
 * registration (a test process cannot read it: a reused pid then does not
 * count), waits for `pid` to end, then leaves for it.
 */
async function leaveAfter(pid: number): Promise<void> {
  const started = startTime(pid);
  const dir = clusterDir();
  if (started === null) {
    // it ended before its watcher started
    await tolerant("stop the test SLURM", () => leave(dir, () => {}, pid));
    return;
  }
  const entry = join(registryOf(dir), String(pid));
  await tolerant("register the test process", () =>
    locked(dir, () => {
      if (existsSync(entry) && readFileSync(entry, "utf8") === "") writeFileSync(entry, started);
    }));
  while (startTime(pid) === started) await new Promise((r) => setTimeout(r, 200));
  await tolerant("stop the test SLURM", () => leave(dir, () => {}, pid, started));
}

/**
 * The binary, built once for every test file of the run (`build_binary.ts`),
 * in a temporary directory (or the one of a suite this one runs in); undefined
 * when it cannot be built (each file that
 * needs it then builds its own, and fails saying why).
 */
async function sharedBinary(): Promise<{ path: string; own: boolean } | undefined> {
  // a suite run by a test (suite_slurm_stop_test.ts) runs the binary of the suite around it
  const outer = Deno.env.get(SHARED_BINARY_VAR);
  if (outer && existsSync(outer)) return { path: outer, own: false };
  const binary = join(mkdtempSync(join(tmpdir(), "scout-suite-bin-")), "scout-ai");
  try {
    await buildBinaryAt(ROOT, binary);
    return { path: binary, own: true };
  } catch (e) {
    rmSync(dirname(binary), { recursive: true, force: true });
    warn(`suite: cannot build the binary once for all test files: ${(e as Error).message}`);
    return undefined;
  }
}

/** A line on stderr; a terminal that hung up (EIO) costs the line, not the stop. */
function warn(line: string): void {
  try {
    console.error(line);
  } catch { /* stderr is gone */ }
}

/** A line on stdout, as {@link warn}. */
function say(line: string): void {
  try {
    console.log(line);
  } catch { /* stdout is gone */ }
}

/** `step()`, or a warning when it fails (the stop is lost, never the suite). */
async function tolerant<T>(what: string, step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch (e) {
    warn(`suite: cannot ${what} (${(e as Error).message}); the test SLURM is not stopped`);
    return undefined;
  }
}

/**
 * Passes the suite's stdout through and returns the last line that is Deno's
 * summary, counting one more failure ({@link summaryWithFailure}). A stdout
 * that is gone (a closed pipe) costs the output, never the suite: it is
 * still read to its end.
 */
async function passThrough(stdout: ReadableStream<Uint8Array>): Promise<string | null> {
  const decoder = new TextDecoder();
  let open = true;
  let partial = "";
  let summary: string | null = null;
  for await (const chunk of stdout) {
    if (open) {
      try {
        for (let n = 0; n < chunk.length;) n += await Deno.stdout.write(chunk.subarray(n));
      } catch {
        open = false;
      }
    }
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop()!;
    for (const line of lines) summary = summaryWithFailure(line) ?? summary;
  }
  return summaryWithFailure(partial + decoder.decode()) ?? summary;
}

if (import.meta.main && Deno.args[0] === "--leave-after") {
  await leaveAfter(Number(Deno.args[1]));
} else if (import.meta.main) {
  // a signal for the suite reaches the wrapper: pass it on (held until the
  // suite is spawned), wait for the suite, then leave
  const run: { suite?: Deno.ChildProcess; early?: Deno.Signal } = {};
  const pass = (sig: Deno.Signal) => {
    try {
      run.suite?.kill(sig);
    } catch { /* it has ended */ }
  };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    Deno.addSignalListener(sig, () => run.suite ? pass(sig) : run.early ??= sig);
  }
  const dir = clusterDir();
  const entered = await tolerant("register the suite", () => enter(dir).then(() => true));
  // the tests run in a HOME of their own: what they write into ~/.scout fails the suite
  const home = await makeSuiteHome();
  const binary = await sharedBinary();
  const suite = new Deno.Command(Deno.execPath(), {
    args: Deno.args,
    stdin: "inherit",
    stdout: "piped",
    // its test files leave through this wrapper, and run the binary it built
    env: {
      ...home.env,
      SCOUT_SUITE_PID: String(Deno.pid),
      ...(binary ? { [SHARED_BINARY_VAR]: binary.path } : {}),
    },
  }).spawn();
  run.suite = suite;
  if (run.early) pass(run.early);
  const summary = await passThrough(suite.stdout);
  let { code } = await suite.status;
  const stray = strayWrites(home.home);
  if (stray.length > 0) {
    warn(strayWritesLine(stray));
    if (summary !== null) say(summary); // the last summary line: what .ci/run counts
    if (code === 0) code = 1;
  }
  if (binary?.own) rmSync(dirname(binary.path), { recursive: true, force: true });
  const kept = removeSuiteHome(home.home);
  if (kept !== null) warn(`suite: cannot remove the suite's HOME ${home.home} (${kept})`);
  if (entered) await tolerant("stop the test SLURM", () => leave(dir));
  Deno.exit(code);
}
