/**
 * The text a SLURM deploy writes or shows: a unit's `command.batch`, and the
 * `sbatch` commands as a bash script (what `--dry-run` prints).
 *
 * @module
 */
import { join } from "node:path";
import type { BatchUnit } from "./slurm_types.ts";

/**
 * Single-quotes a word for bash.
 *
 * @param s the word
 * @returns the quoted word
 */
export function shq(s: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Text for one line of a script (a comment, `#SBATCH --job-name`): line breaks become spaces. */
function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}

/**
 * The `command.batch` text of a unit: `#SBATCH` header from its resources,
 * then this program on its jobs, the exit status written to `exit.status`.
 *
 * @param u the unit
 * @param argv the command to run
 * @param cwd working directory
 * @returns bash script text
 */
export function batchScript(u: BatchUnit, argv: string[], cwd: string): string {
  const r = u.resources;
  const h: string[] = [
    "#!/bin/bash",
    `#SBATCH --job-name=${
      shq(oneLine(`scout-ai-${u.jobs.at(-1)!.taskName}-${u.jobs.at(-1)!.name}`))
    }`,
    `#SBATCH --output=${shq(join(u.dir, "std.out"))}`,
    `#SBATCH --error=${shq(join(u.dir, "std.err"))}`,
    `#SBATCH --chdir=${shq(cwd)}`,
    `#SBATCH --cpus-per-task=${r.cpus ?? 1}`,
  ];
  const opt = (flag: string, v: string | number | undefined) => {
    if (v !== undefined && v !== "") h.push(`#SBATCH --${flag}=${shq(String(v))}`);
  };
  opt("time", r.time);
  opt("mem", r.mem);
  opt("mem-per-cpu", r.mem_per_cpu);
  opt("partition", r.partition);
  opt("account", r.account);
  opt("qos", r.qos);
  opt("gres", r.gres);
  opt("constraint", r.constraints);
  opt("nodes", r.nodes);
  if (r.exclusive) h.push("#SBATCH --exclusive");
  return [
    ...h,
    "",
    `# scout-ai batch job: ${oneLine(u.jobs.map((j) => j.shortPath).join(", "))}`,
    "# The job store must be on a file system this node sees.",
    `cd ${shq(cwd)} || exit 1`,
    argv.map(shq).join(" "),
    "status=$?",
    `echo "$status" > ${shq(join(u.dir, "exit.status"))}`,
    'exit "$status"',
    "",
  ].join("\n");
}

/**
 * The `sbatch` commands of the units as a bash script, each unit's
 * dependencies as `$idN` of earlier units.
 *
 * @param units the units, in submission order
 * @returns bash script text
 */
export function sbatchScript(units: BatchUnit[]): string {
  const lines: string[] = ["#!/bin/bash", "set -e"];
  const varOf = new Map<BatchUnit, string>();
  for (const [i, u] of units.entries()) {
    const v = `id${i + 1}`;
    varOf.set(u, v);
    const depArg = u.after.length > 0
      ? `--dependency=afterok:${u.after.map((a) => "$" + varOf.get(a)).join(":")} ` +
        "--kill-on-invalid-dep=yes "
      : "";
    lines.push(`${v}=$(sbatch --parsable ${depArg}${shq(join(u.dir, "command.batch"))})`);
  }
  return lines.join("\n") + "\n";
}
