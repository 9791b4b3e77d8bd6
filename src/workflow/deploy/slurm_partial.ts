/**
 * A SLURM deploy that stops part-way (`sbatch` refused a unit): the error
 * names the unit's job, the rule sets that gave its resources, what sbatch
 * said, and the units already in SLURM (which stay queued), and carries the
 * deploy's report so the command can still print them (`--json` too).
 *
 * @module
 */
import { isScoutError, plainMessage, ScoutError } from "../../errors.ts";
import { ruleSetsOf } from "./rules.ts";
import type { DeployRules } from "./rules.ts";
import type { BatchUnit, SlurmDeployReport } from "./slurm_types.ts";
import { clipMiddle } from "../../util/clip.ts";

/** The most of sbatch's stderr an error keeps: its last lines, up to this many characters. */
const MAX_STDERR = 1_000;
const MAX_LINES = 10;

/**
 * A tool's stderr on one line: every line kept (sbatch's last one says why
 * it gave up; its first may be a "retrying" note), joined with `; `; a long
 * one keeps its last lines, cut to 1,000 characters from the end.
 *
 * @param stderr the text
 * @returns one line
 *
 * @example
 * ```ts
 * import { stderrLine } from "./slurm_partial.ts";
 * stderrLine("sbatch: error: a, retrying\nsbatch: fatal: b\n"); // "sbatch: error: a, retrying; sbatch: fatal: b"
 * ```
 */
export function stderrLine(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  let out = lines.slice(-MAX_LINES).join("; ");
  if (lines.length > MAX_LINES) out = "… " + out;
  return clipMiddle(out, 0, MAX_STDERR);
}

/** A unit for a message: its job's short path and SLURM id. */
function named(u: BatchUnit): string {
  return `${u.jobs.at(-1)!.shortPath} (SLURM job ${u.slurmId})`;
}

/**
 * The error of a deploy whose unit `failedAt` could not be submitted: that
 * unit's status becomes `failed`, the later ones' `not-submitted` (those
 * queued before this deploy stay `queued`); the earlier ones keep their SLURM ids. The error (code of the cause, or
 * `batch_system`) carries `report` (every unit, `top` when known) and
 * `stderr` (sbatch's, whole).
 *
 * @param units the units, in submission order
 * @param failedAt index of the unit that failed
 * @param cause what submitting it threw
 * @param top the unit of the top job, if any
 * @param rules the rules (to name the failed unit's rule sets)
 * @param withheldEnv the settings the scripts left out as credentials (the report's `withheldEnv`)
 * @returns the error, to throw
 */
export function submissionFailure(
  units: BatchUnit[],
  failedAt: number,
  cause: unknown,
  top: BatchUnit | undefined,
  rules: DeployRules | undefined,
  withheldEnv: readonly string[] = [],
): ScoutError {
  const failed = units[failedAt]!;
  failed.status = "failed";
  // a unit queued before this deploy stays queued
  for (const u of units.slice(failedAt + 1)) if (!u.queuedByInfo) u.status = "not-submitted";
  const sets = [
    ...new Set(failed.jobs.flatMap((j) => ruleSetsOf(rules, j.workflowName, j.taskName))),
  ];
  const rulesNote = sets.length > 0 && rules?.file !== undefined
    ? ` (its resources from ${sets.join(", ")} in ${rules.file})`
    : "";
  const inSlurm = units.slice(0, failedAt).filter((u) => u.slurmId !== undefined);
  const before = inSlurm.length === 0
    ? "; nothing was submitted before it"
    : `; ${
      inSlurm.length === 1 ? "this job was" : "these jobs were"
    } submitted before it and stay queued: ${inSlurm.map(named).join(", ")} (scancel ${
      inSlurm.map((u) => u.slurmId).join(" ")
    } cancels them)`;
  const report: SlurmDeployReport = {
    units,
    ...(top !== undefined ? { top } : {}),
    ...(withheldEnv.length > 0 ? { withheldEnv: [...withheldEnv] } : {}),
  };
  const code = isScoutError(cause) ? cause.code : "batch_system";
  const stderr = isScoutError(cause) && typeof cause.stderr === "string" ? cause.stderr : undefined;
  return new ScoutError(
    code,
    `Submitting ${failed.jobs.at(-1)!.shortPath}${rulesNote} failed: ${
      plainMessage(cause)
    }${before}`,
    {
      cause,
      report,
      ...(stderr !== undefined ? { stderr } : {}),
    },
  );
}
