/**
 * The text a SLURM deploy writes or shows: a unit's `command.batch`, and a
 * dry run's bash script (the batch directories' files and the `sbatch`
 * commands a real run would use).
 *
 * @module
 */
import { join } from "node:path";
import type { BatchUnit } from "./slurm_types.ts";
import { shellQuote } from "../../util/shell_words.ts";

/**
 * Single-quotes a word for bash (unchanged when it holds only plain
 * characters): `util/shell_words.ts`'s `shellQuote`, the quoting of every
 * command scout-ai writes for a shell.
 *
 * @param s the word
 * @returns the quoted word
 */
export function shq(s: string): string {
  return shellQuote(s);
}

/** Text for one line of a script (a comment, `#SBATCH --job-name`): line breaks become spaces. */
function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}

/**
 * The `command.batch` text of a unit: `#SBATCH` header from its resources,
 * the environment it needs (exported here, whatever SLURM passes on), then
 * this program on its jobs, waited for (signals passed on), its exit status
 * written to `exit.status` — 128 + n when signal n ended it.
 *
 * @param u the unit
 * @param argv the command to run
 * @param cwd working directory
 * @param vars variables to export first (`slurm_env.ts`)
 * @returns bash script text
 */
export function batchScript(
  u: BatchUnit,
  argv: string[],
  cwd: string,
  vars: readonly (readonly [string, string])[] = [],
): string {
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
    ...(vars.length > 0
      ? [
        "# The submitting shell's settings: SLURM may pass on none of them (--export=NONE).",
        ...vars.map(([k, v]) => `export ${k}=${shq(v)}`),
      ]
      : []),
    `cd ${shq(cwd)} || exit 1`,
    ...runAndWait(argv),
    `echo "$status" > ${shq(join(u.dir, "exit.status"))}`,
    'exit "$status"',
    "",
  ].join("\n");
}

/**
 * The lines that run `argv` and leave its exit status in `$status`: in the
 * background (SIGINT and SIGQUIT not ignored, as they would be), this shell
 * waiting for it and passing SIGTERM, SIGINT and SIGHUP on. A shell running
 * it in the foreground dies of SLURM's SIGTERM (`scancel`, the time limit)
 * without writing `exit.status`; the program, its parent gone, is then no
 * longer in the job's process tree where SLURM tracks it by parentage
 * (proctrack/linuxproc), and outlives the job, SLURM's SIGKILL never
 * reaching it (R109-6). A signal that interrupts `wait` is passed on and
 * waited again, until the program has ended.
 */
function runAndWait(argv: string[]): string[] {
  return [
    "# Run in the background, this shell waiting: it passes SLURM's signals on and outlives",
    "# the program, so exit.status is written and SLURM's SIGKILL after KillWait reaches it.",
    'pid=""',
    ...["TERM", "INT", "HUP"].map((s) =>
      `trap '[ -n "$pid" ] && kill -${s} "$pid" 2>/dev/null' ${s}`
    ),
    `( trap - INT QUIT; exec ${argv.map(shq).join(" ")} ) &`,
    "pid=$!",
    'while :; do wait "$pid"; status=$?; kill -0 "$pid" 2>/dev/null || break; done',
  ];
}

/** `cat > FILE <<'MARK'` … `MARK`, with a mark no line of the text is. */
function hereDoc(file: string, text: string): string[] {
  const lines = text.split("\n");
  let mark = "SCOUT_AI_EOF";
  while (lines.includes(mark)) mark += "_";
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return [`cat > ${shq(file)} <<'${mark}'`, body, mark];
}

/**
 * A dry run's bash script: what `--clean`/`--recompute` would remove (as
 * comments), then per unit either its SLURM id (still queued, not submitted
 * again) or its batch directory's files and its `sbatch` command, the
 * dependencies as `$idN` of earlier units.
 *
 * @param units the units, in submission order
 * @param scripts each unit's `command.batch` text
 * @param cleaned job paths a real run would clean first
 * @param prelude lines for what a real run does before (saving input files)
 * @returns bash script text
 */
export function dryRunScript(
  units: BatchUnit[],
  scripts: ReadonlyMap<BatchUnit, string>,
  cleaned: readonly string[] = [],
  prelude: readonly string[] = [],
): string {
  const lines: string[] = ["#!/bin/bash", "set -e"];
  if (cleaned.length > 0) {
    lines.push("# A real run first removes the result, info and files of:");
    for (const p of cleaned) lines.push(`#   ${oneLine(p)}`);
  }
  lines.push(...prelude);
  const varOf = new Map<BatchUnit, string>();
  for (const [i, u] of units.entries()) {
    const v = `id${i + 1}`;
    varOf.set(u, v);
    const what = oneLine(u.jobs.map((j) => j.shortPath).join(", "));
    if (u.status === "queued") {
      lines.push(`# ${what}: SLURM job ${u.slurmId} is still queued; not submitted again`);
      lines.push(`${v}=${shq(u.slurmId!)}`);
      continue;
    }
    if (u.stateUnknown !== undefined) {
      lines.push(
        oneLine(
          `# SLURM job ${u.stateUnknown.id}: state unknown (squeue: ${u.stateUnknown.squeue}); ` +
            "a real run asks again and submits this only when that job no longer runs it",
        ),
      );
    }
    const deps = u.after.map((a) => "$" + varOf.get(a));
    const depArg = deps.length > 0
      ? `--dependency=afterok:${deps.join(":")} --kill-on-invalid-dep=yes `
      : "";
    const file = (f: string) => shq(join(u.dir, f));
    lines.push(
      `# ${what}`,
      `mkdir -p ${shq(u.dir)}`,
      ...hereDoc(join(u.dir, "command.batch"), scripts.get(u) ?? ""),
      ...hereDoc(join(u.dir, "jobs.list"), u.jobs.map((j) => j.path).join("\n") + "\n"),
      deps.length > 0
        ? `printf '%s\\n' ${deps.map((d) => `"${d}"`).join(" ")} > ${file("dependencies.list")}`
        : `: > ${file("dependencies.list")}`,
      `${v}=$(sbatch --parsable ${depArg}${file("command.batch")})`,
      `echo "$${v}" > ${file("job.id")}`,
    );
  }
  return lines.join("\n") + "\n";
}
