/**
 * Stand-ins for the test SLURM's daemons (`tests/e2e/suite_slurm_stop_test.ts`,
 * `tests/e2e/slurm_tools_test.ts`): `sleep` under each daemon's name, so that
 * a process's name (`/proc/<pid>/comm`, which `tools/slurm-down` checks before
 * it signals a recorded pid) is the daemon's.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

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
