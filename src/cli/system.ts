/**
 * `scout-ai system …` (Scout's `scout system`): looking after a job store
 * that many runs share. `clean` lives in `system_clean.ts`.
 *
 * @module
 */
import { Option } from "@commander-js/extra-typings";
import type { Command } from "@commander-js/extra-typings";
import { usageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import { runSystemClean } from "./system_clean.ts";
import { oneJobsDir } from "./jobs_dir.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { fittedHelp } from "./help_layout.ts";

const CLEAN_HELP = `
Removes, from the jobs of WORKFLOW (a name or a workflow's path, a comma list,
or 'all') and TASK:
  - jobs that will never finish: error, aborted, stale (their process is gone),
    unsync (.info says done, no result), waiting on a SLURM job that ended;
  - with --older AGE, also done jobs not used for that long (their result last
    read or written, their .info last written).
A job goes whole: result, .info, .files/, tmp result, its .md5, .pid and
.notify (not jobs; Scout leaves them), lock. Directories stay.
Stale locks (holder dead, or not refreshed for 30 s) go first; without a
WORKFLOW only they do, as in Scout.

Never removed: a job in progress (its pid alive on this host, a SLURM job that
may still run it, or its lock held: each job is removed under its lock, as a
run takes it, so a run of it elsewhere is waited for or skipped), a job a
--keep chat's provenance reaches (as 'llm prov CHAT' walks it), and any
dependency of a job that stays; nor a job used in the last minute. A job in
progress on another host is removed only when untouched for --older and its
lock is free. An .info is read as JSON or as Scout's Marshal dump; a job that
stays whose .info cannot be read at all (its dependencies unknown) keeps every
done job, with a warning naming it; failed and dead jobs still go. A store
reached through symbolic links is cleaned once, each job under its lock by
every spelling known (SCOUT_HOME's, the cwd's var/jobs, the real path).

AGE: 30d, 12h, 2w, 3mo, 1y, 1d 12h, 90m (m is minutes), 0 (any age); a bare
number counts days; the unit right after its number (Scout reads '12 h' as 12
days), no decimals (Scout reads 1.5d as 6 days); 1d12h also works here (not in
Scout). Exit 0, 1 when a job could not be removed, 2 on a usage error (a bad
AGE; a WORKFLOW or TASK with no jobs in the store that names no workflow or
task scout-ai can find — a known one with no jobs yet: "0 jobs" —, or a path
holding no workflow). A path stands for the name in its file's workflow("Name",
…) (else its directory's name): the file is read, never run.

${FIXTURE_EXAMPLES}
  scout-ai system clean Baking --dry-run    # the failed and dead jobs of Baking
  scout-ai system clean all --older 90d --dry-run
  scout-ai system clean Baking whisk --older 30d
  scout-ai system clean all --older 1y --dry-run \\
    --jobs-dir fixtures/provenance/society/jobs \\
    --keep fixtures/provenance/society/plan.chat
  scout-ai system clean all --older 1y --json | jq .bytes
  scout-ai system clean                     # stale locks only`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Scout's flags `system clean` does not take, with why. */
const REFUSED: Record<string, string> = {
  force: "--force is not supported: a job in progress is never removed",
  dirty: "--dirty is not supported: recompute outdated jobs with 'workflow task --recompute'",
};

function registerSystemClean(system: Command, ctx: CliContext): void {
  system.command("clean")
    .description("remove failed, dead and (with --older) unused jobs, and stale locks")
    .argument("[workflow]", "workflow name or path, comma list, or 'all' (none: stale locks only)")
    .argument("[task]", "task name or comma list (default: every task)")
    .option("-o, --older <age>", "also remove done jobs unused for longer than AGE (e.g. 30d)")
    .addOption(new Option("--older-than <age>", "same as --older").hideHelp())
    .option("--keep <chat>", "keep the jobs this chat's provenance reaches (repeatable)", collect)
    .option(
      "--jobs-dir <dir>",
      "clean this jobs directory only (default: the search roots)",
      oneJobsDir,
    )
    .option("--dry-run", "list what would be removed; remove nothing")
    .option("--json", "print {version, removed, kept, failed, locks, bytes}")
    // Scout's, named to say why not (its --all and --quick change nothing here)
    .addOption(new Option("-f, --force").hideHelp())
    .addOption(new Option("-d, --dirty").hideHelp())
    .addOption(new Option("-a, --all").hideHelp())
    .addOption(new Option("-q, --quick").hideHelp())
    .addHelpText("after", fittedHelp(CLEAN_HELP))
    .action(async (workflow, task, o) => {
      for (const flag of ["force", "dirty"] as const) {
        if (o[flag]) throw usageError(REFUSED[flag]!);
      }
      if (o.older !== undefined && o.olderThan !== undefined) {
        throw usageError("--older and --older-than are one option: give it once");
      }
      const older = o.older ?? o.olderThan;
      ctx.exitCode = await runSystemClean({
        ...(workflow !== undefined ? { workflow } : {}),
        ...(task !== undefined ? { task } : {}),
        ...(older !== undefined ? { older } : {}),
        keep: o.keep ?? [],
        ...(o.jobsDir !== undefined ? { jobsDir: o.jobsDir } : {}),
        dryRun: Boolean(o.dryRun),
        json: Boolean(o.json),
      }, ctx.io);
    });
}

/**
 * Registers the `system` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerSystem(program: Command, ctx: CliContext): void {
  const system = program.command("system").description(
    "look after a shared store: clean old, failed and dead jobs and stale locks",
  ).addHelpText(
    "after",
    fittedHelp(
      "\nExamples:\n  scout-ai system clean all --older 90d --dry-run\n" +
        "  scout-ai system clean                     # stale locks only",
    ),
  );
  registerSystemClean(system, ctx);
}
