/**
 * The single-node SLURM of the tests: `tools/slurm-up` (idempotent, shared by
 * every test file; each test uses its own SCOUT_HOME and batch directories, so
 * files run in parallel without colliding). Where SLURM cannot be started the
 * caller's test fails with one line saying so.
 */
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";
import { clusterDir, enter, leaveWhenEnded } from "../support/suite.ts";

let up: Promise<string> | null = null;

/**
 * Starts (or finds) the test cluster and returns the environment its clients need.
 *
 * @returns `{ SLURM_CONF }`
 * @throws Error with one line when SLURM is not available here
 */
export function slurmEnv(): Promise<Record<string, string>> {
  up ??= (async () => {
    // a user of the cluster: no suite that ends meanwhile stops it (this process may be a
    // `deno test` run directly, or a bench); the registration lapses when the process ends
    await enter(clusterDir()).catch(() => {}); // without it, only the stop is at stake
    // run without the suite's wrapper: a watcher leaves for this process when it ends
    await leaveWhenEnded(clusterDir()).catch(() => false);
    const out = await new Deno.Command(join(ROOT, "tools", "slurm-up"), {
      // a cluster started here is the tests': `deno task test` stops it after the suite, and
      // the watcher once this process (a test file run directly, a bench) has ended
      env: { SCOUT_SLURM_OWNER: "tests" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const conf = /SLURM_CONF=(\S+)/.exec(dec.decode(out.stdout))?.[1];
    if (out.code !== 0 || conf === undefined) {
      const why = dec.decode(out.stderr).trim().split("\n").at(-1) ?? "";
      throw new Error(`SLURM is not available on this machine, the SLURM tests cannot run: ${why}`);
    }
    return conf;
  })();
  return up.then((conf) => ({ SLURM_CONF: conf }));
}

/**
 * Runs a SLURM client command (squeue, scancel…) with the test cluster's env.
 *
 * @param cmd command
 * @param args arguments
 * @returns stdout text
 */
export async function slurmCmd(cmd: string, args: string[]): Promise<string> {
  const env = await slurmEnv();
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Polls `cond` every 100 ms until true, or fails after `ms`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SLURM states of a job that still has, or may yet start, processes. */
const LIVE = new Set(["PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED"]);

/**
 * `scancel`s `ids` and waits until none of them has a process left: a batch
 * job ended by SIGTERM writes its job's `.info` as it goes, and a test whose
 * temporary directory is removed before that finds the job store written
 * again under `/tmp` after it ended.
 *
 * @param ids SLURM job ids (none: nothing is done)
 */
export async function cancelAndWait(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await slurmCmd("scancel", ids);
  await waitUntil(async () => {
    const out = await slurmCmd("squeue", ["-h", "-t", "all", "-j", ids.join(","), "-o", "%T"]);
    return out.split("\n").every((state) => !LIVE.has(state.trim()));
  }, `SLURM jobs ${ids.join(", ")} to end after scancel`);
}
