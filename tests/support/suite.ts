/**
 * Runs the test suite (`deno task test`: `suite.ts ARGS…` runs `deno ARGS…`)
 * and stops the test SLURM afterwards when this suite started it.
 *
 * The SLURM tests start a single-node cluster on demand (`tools/slurm-up`,
 * from `slurm_support.ts`) and nothing in a test run knows when the last test
 * file is done with it; before this wrapper, `tools/deno task ok` left
 * slurmctld, slurmd and munged running. The rule: a cluster that was down
 * when a suite began is the suites' (`<dir>/.suites/.ours`); every suite run
 * registers itself in `<dir>/.suites/<pid>`; the last one to leave stops a
 * cluster that is the suites' (`tools/slurm-down`). A cluster already up and
 * not the suites' (started by `.ci/run`, or by hand) is never stopped. A
 * suite that died without leaving (its pid is gone) no longer counts.
 *
 * `<dir>` is `$SCOUT_SLURM_DIR` or `/tmp/scout-slurm`, as for `tools/slurm-up`.
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..", "..");

/** Whether the process with this pid runs (a zombie does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/s.test(stat);
  } catch {
    return false;
  }
}

/** Whether every daemon of the cluster in `dir` runs (as `tools/slurm-up`'s `alive`). */
export function clusterUp(dir: string): boolean {
  return ["slurmctld", "slurmd", "munged"].every((d) => {
    try {
      return running(Number(readFileSync(join(dir, `${d}.pid`), "utf8").trim()));
    } catch {
      return false;
    }
  });
}

/**
 * Runs `body` holding the registry's lock (a file in it). A registry removed
 * while this waited for the lock (the last suite out stopped the cluster) is
 * made again.
 */
async function locked<T>(registry: string, body: () => T | Promise<T>): Promise<T> {
  for (;;) {
    mkdirSync(registry, { recursive: true });
    const path = join(registry, ".lock");
    using file = await Deno.open(path, { create: true, write: true });
    await file.lock(true);
    const held = await file.stat();
    const now = Deno.statSync(path);
    if (held.ino === now.ino && held.dev === now.dev) return await body();
  }
}

/** The registered suites that still run, other than `self`; the dead ones are dropped. */
function othersRunning(registry: string, self: number): number[] {
  const live: number[] = [];
  for (const name of readdirSync(registry)) {
    if (!/^\d+$/.test(name) || Number(name) === self) continue;
    if (running(Number(name))) live.push(Number(name));
    else rmSync(join(registry, name), { force: true });
  }
  return live;
}

/** The suites' registry of the cluster in `dir`. */
const registryOf = (dir: string) => join(dir, ".suites");

/**
 * Registers this suite; notes the cluster as the suites' when it is down.
 *
 * @param dir the cluster's directory
 */
export async function enter(dir: string): Promise<void> {
  const registry = registryOf(dir);
  await locked(registry, () => {
    if (!clusterUp(dir)) writeFileSync(join(registry, ".ours"), "");
    writeFileSync(join(registry, String(Deno.pid)), "");
  });
}

/**
 * Unregisters this suite. The last one out stops a cluster that is the
 * suites' (`tools/slurm-down`, which removes `dir`), or removes `dir` when it
 * holds nothing but the registry (no SLURM test ran).
 *
 * @param dir the cluster's directory
 * @returns what it did: `stopped`, `removed` or `left`
 */
export async function leave(dir: string): Promise<"stopped" | "removed" | "left"> {
  const registry = registryOf(dir);
  return await locked(registry, async () => {
    rmSync(join(registry, String(Deno.pid)), { force: true });
    if (othersRunning(registry, Deno.pid).length > 0) return "left";
    if (existsSync(join(registry, ".ours"))) {
      await new Deno.Command(join(ROOT, "tools", "slurm-down"), {
        args: [dir],
        stdout: "null",
        stderr: "null",
      }).output();
      rmSync(dir, { recursive: true, force: true }); // slurm-down's, unless it failed
      return "stopped";
    }
    if (!clusterUp(dir) && readdirSync(dir).every((n) => n === ".suites")) {
      rmSync(dir, { recursive: true, force: true });
      return "removed";
    }
    return "left";
  });
}

if (import.meta.main) {
  const dir = Deno.env.get("SCOUT_SLURM_DIR") || "/tmp/scout-slurm";
  await enter(dir);
  const child = new Deno.Command(Deno.execPath(), { args: Deno.args, stdin: "inherit" }).spawn();
  // Ctrl-C reaches the suite too (one process group): wait for it to end, then leave
  Deno.addSignalListener("SIGINT", () => {});
  Deno.addSignalListener("SIGTERM", () => child.kill("SIGTERM"));
  const { code } = await child.status;
  await leave(dir);
  Deno.exit(code);
}
