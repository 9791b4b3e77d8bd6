/**
 * How a waited-for SLURM deploy (`workflow task --deploy slurm --wait`)
 * ended, as its exit code and one line on stderr: the top job's state and
 * its std.err, or — when it never ran because a batch job it waited for
 * failed — that job, its error and its log.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "../workflow/mod.ts";
import type { BatchEnd, SlurmDeployReport } from "../workflow/deploy/mod.ts";
import type { Io } from "./io.ts";

const deployLib = () => import("../workflow/deploy/mod.ts");

/**
 * The exit code of a waited-for deploy: 0 when the top job's unit completed
 * with exit status 0; else 1, after a line saying how it ended and what to
 * read: its std.err, or, when a dependency failed (`DependencyNeverSatisfied`),
 * the dependency's job, error and std.err, as serial and local runs name it.
 *
 * @param sub the submission (top job and units)
 * @param end how the top job's unit ended
 * @param io I/O
 * @returns exit code
 */
export async function reportEnd(
  { top, report }: { top: Job; report: SlurmDeployReport },
  end: BatchEnd,
  io: Io,
): Promise<number> {
  const ok = end.state === "COMPLETED" && (end.exitStatus ?? 0) === 0;
  if (ok) return 0;
  const how = `${top.shortPath} ended ${end.state}${
    end.reason && end.reason !== "None" ? ` (${end.reason})` : ""
  }${end.exitStatus !== undefined ? `, exit status ${end.exitStatus}` : ""}`;
  const unit = report.top!;
  let why = "";
  if (end.reason === "DependencyNeverSatisfied") {
    const { failedDependency } = await deployLib();
    const failed = await failedDependency(report.units, unit, io.env);
    if (failed !== undefined) {
      why = `: Job "${failed.job.shortPath}" failed: ${failed.message}; ${
        failed.log !== undefined
          ? `see ${failed.log}`
          : `its batch job wrote no std.err (${failed.unit.dir})`
      }`;
    }
  }
  if (why === "") {
    const log = join(unit.dir, "std.err");
    why = existsSync(log) ? `; see ${log}` : `; it never ran (no std.err in ${unit.dir})`;
  }
  io.stderr.write(`scout-ai: ${how}${why}\n`);
  return 1;
}
