/**
 * Stand-ins for the test SLURM's daemons (`tests/e2e/suite_slurm_stop_test.ts`,
 * `tests/e2e/suite_slurm_direct_test.ts`, `tests/e2e/slurm_tools_test.ts`): `sleep` under each daemon's name, so that
 * a process's name (`/proc/<pid>/comm`, which `tools/slurm-down` checks before
 * it signals a recorded pid) is the daemon's. And a stand-in `squeue` that
 * fails as a real one does when the controller cannot be reached
 * (`tests/workflow/deploy_slurm_state_test.ts`).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/** The daemons `tools/slurm-up` records, in its order of pid files. */
export const DAEMONS = ["slurmctld", "slurmd", "munged"] as const;

/**
 * `<tmp>/daemons/<daemon>`: symbolic links to `sleep`, one per daemon.
 *
 * @param tmp a directory of the test's own
 * @returns the directory of the links
 */
export function daemonStandIns(tmp: string): string {
  const bin = join(tmp, "daemons");
  Deno.mkdirSync(bin, { recursive: true });
  const sleep = new TextDecoder().decode(
    new Deno.Command("bash", { args: ["-c", "command -v sleep"], stdout: "piped" }).outputSync()
      .stdout,
  ).trim();
  for (const d of DAEMONS) {
    if (!existsSync(join(bin, d))) Deno.symlinkSync(sleep, join(bin, d));
  }
  return bin;
}

/** Stand-in daemons. */
export interface Daemons {
  /** Whether each still runs. */
  running(): boolean[];
  /** Whether all ended within 10 s. */
  stopped(): Promise<boolean>;
  /** Ends them (the ones a stop did not end). */
  end(): Promise<void>;
}

/** How a stand-in cluster was started. */
export interface ClusterOptions {
  /** Started by the tests (`.owner` says `tests`), or by someone else. */
  byTests: boolean;
  /** munged ignores SIGTERM, as a slow daemon: `tools/slurm-down` then takes ~5 s. */
  slowStop?: boolean;
}

/** Three processes standing for the cluster, with `tools/slurm-up`'s pid files. */
export function startDaemons(dir: string, opts: ClusterOptions): Daemons {
  Deno.mkdirSync(dir, { recursive: true });
  const bin = daemonStandIns(dirname(dir));
  const ended: boolean[] = [false, false, false];
  const children = DAEMONS.map((name, i) => {
    const slow = opts.slowStop && name === "munged";
    const child = new Deno.Command("bash", {
      args: ["-c", `${slow ? "trap '' TERM; " : ""}exec ${join(bin, name)} 600`],
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.status.then(() => ended[i] = true);
    Deno.writeTextFileSync(join(dir, `${name}.pid`), `${child.pid}\n`);
    return child;
  });
  if (opts.byTests) Deno.writeTextFileSync(join(dir, ".owner"), "tests\n");
  return {
    running: () => ended.map((e) => !e),
    async stopped() {
      for (let i = 0; i < 750 && ended.some((e) => !e); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return ended.every((e) => e);
    },
    async end() {
      for (const [i, c] of children.entries()) if (!ended[i]) c.kill("SIGKILL");
      await Promise.all(children.map((c) => c.status));
    },
  };
}

/** A test's temp directory with a cluster directory in it. */
export interface Scenario {
  /** The test's temp directory (the `go` files). */
  tmp: string;
  /** The cluster's directory (`SCOUT_SLURM_DIR`). */
  dir: string;
  /** Starts the cluster's daemons (ended after the test if a stop did not). */
  startCluster(opts: ClusterOptions): Daemons;
}

/** Runs `body` in a temp directory; ends what it started and removes the directory after. */
export async function scenario(body: (s: Scenario) => Promise<void>): Promise<void> {
  const tmp = Deno.makeTempDirSync({ prefix: "scout-suite-" });
  const dir = join(tmp, "slurm");
  const started: Daemons[] = [];
  try {
    await body({
      tmp,
      dir,
      startCluster: (opts) => started[started.push(startDaemons(dir, opts)) - 1]!,
    });
  } finally {
    for (const d of started) await d.end();
    Deno.removeSync(tmp, { recursive: true });
  }
}

/** How a stand-in `squeue` behaves. */
export interface SqueueScript {
  /** Its first `failures` calls print `failure` on stderr and exit 1. */
  failures: number;
  /** What a failing call prints on stderr. */
  failure: string;
  /** What later calls print on stdout (`id|STATE|reason` lines). */
  answer: string;
}

/** A stand-in `squeue` on a PATH of its own. */
export interface SqueueStandIn {
  /** The environment that finds it first (`PATH`). */
  env: Record<string, string>;
  /** How often it was called so far. */
  calls(): number;
}

/**
 * Writes `<tmp>/squeue-bin/squeue`: a script that fails the first calls, then answers.
 *
 * @param tmp a directory of the test's own
 * @param script its behaviour
 * @returns its environment and call count
 */
export function squeueStandIn(tmp: string, script: SqueueScript): SqueueStandIn {
  const bin = join(tmp, "squeue-bin");
  Deno.mkdirSync(bin, { recursive: true });
  Deno.writeTextFileSync(join(bin, "failure"), script.failure);
  Deno.writeTextFileSync(join(bin, "answer"), script.answer);
  const count = join(bin, "calls");
  Deno.writeTextFileSync(count, "0\n");
  const path = join(bin, "squeue");
  Deno.writeTextFileSync(
    path,
    `#!/usr/bin/env bash
n=$(( $(cat "${count}") + 1 )); echo "$n" >"${count}"
if [ "$n" -le ${script.failures} ]; then cat "${bin}/failure" >&2; exit 1; fi
cat "${bin}/answer"
`,
  );
  Deno.chmodSync(path, 0o755);
  return {
    env: { PATH: `${bin}:${Deno.env.get("PATH") ?? ""}` },
    calls: () => Number(Deno.readTextFileSync(count).trim()),
  };
}
