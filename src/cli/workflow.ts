/**
 * `scout-ai workflow task|info|list` — run workflow tasks as persisted jobs
 * and inspect jobs (ours and Scout's). Registration is light; the workflow
 * library is imported when a command runs.
 *
 * `--json` shapes (version 1):
 * - `task`: `{"version":1,"path","shortPath","status","result"}` (on failure
 *   `"status":"error","error":message`, exit 1, with `"jobStatus"` — the job's
 *   own status as `info` shows it: `missing` when it never started, a
 *   dependency having failed — and `"failed":{"path","shortPath","status"}`,
 *   the job that failed, itself or a dependency); stopped by a signal, the
 *   same with `"code":"interrupted","signal"` and `error` the stderr line's
 *   `Interrupted (job "…" recorded as aborted)`; `result` is the loaded value
 *   (chat → messages, binary → text).
 * - `info`: `{"version":1,"path","shortPath","status","done","running","process",
 *   "stale","info","infoProblem","dependencies":[{"ref","path","status"}],"files":[…],
 *   "batch"?:{"system","id","state","reason","ended","error"?}}` (`batch`: a waiting job's
 *   SLURM job as squeue tells it — `state` null when SLURM no longer knows it or could not
 *   be asked, `error` then saying why);
 *   a JOB not found: `{"version":1,"path":JOB,"status":"notfound","error":message}`, exit 1.
 *   `info` is the `.info` as read: its `issued`/`start`/`end` in Scout's format
 *   (`2026-12-02 07:55:28 +0000`, kept for Ruby Scout), not ISO 8601 (R143-7).
 * - `list`: `{"version":1,"workflows":[{"name","file","tasks":[…],"error"?}]}`
 *   (`error` names a file that cannot be loaded; exit 1), or with a
 *   workflow `{"version":1,"workflow","file","tasks":[{"name","type","description",
 *   "inputs":[…],"jobs":[{"name","path","status","running","process"}]}]}`.
 *
 * A job whose info says it is in progress (`start`, `napping`…) but whose
 * recorded process (`pid` on `pid_hostname`) is gone has `"status":"stale"`,
 * `"stale":true`, `"process":"gone"` (the recorded status stays in
 * `info.status`). `process` is `alive`, `gone`, `none` (no pid) or `unknown`:
 * a pid on another host cannot be checked, and then `running` is null. A
 * `waiting` job whose SLURM job ended without starting it (cancelled, a
 * dependency failed, forgotten by SLURM) is `"stale"` too, `batch.ended` true.
 *
 * Each subcommand lives in its own file (`workflow_task.ts`,
 * `workflow_info.ts`, `workflow_list.ts`); this file registers them.
 *
 * @module
 */
import { type Command, type CommandUnknownOpts, Help, Option } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { runWorkflowInfo } from "./workflow_info.ts";
import { runWorkflowList } from "./workflow_list.ts";
import { runWorkflowTask } from "./workflow_task.ts";
import type { DeployOptions } from "./workflow_task_options.ts";
import type { HelpOption } from "./workflow_help.ts";
import { BATCH_DIR_HELP, registerWorkflowBatch } from "./workflow_batch.ts";
import { JOBS_DIR_HELP } from "./workflow_common.ts";
import { oneJobsDir } from "./jobs_dir.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { registerNotPorted } from "./not_ported.ts";
import { registerWorkflowMcp } from "./workflow_mcp.ts";
import { END_OF_OPTIONS, markEndOfOptions, splitAtEnd } from "./workflow_task_escape.ts";
import { fittedHelp, HELP_LAYOUT } from "./help_layout.ts";
import { addScoutSpellings } from "./ruby_flags.ts";
import { INFO_SCOUT_SPELLINGS, TASK_SCOUT_SPELLINGS } from "./workflow_scout_flags.ts";

function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}

function deployFlags(o: {
  deploy?: string;
  cpus?: string;
  deployRules?: string;
  dryRun?: true;
  wait?: true;
  batchDir?: string;
  deployWorker?: true;
  deployJob?: string[];
  deployInputs?: string;
}): DeployOptions {
  const out: DeployOptions = {};
  if (o.deploy !== undefined) out.deploy = o.deploy;
  if (o.cpus !== undefined) out.cpus = o.cpus;
  if (o.deployRules !== undefined) out.deployRules = o.deployRules;
  if (o.dryRun) out.dryRun = true;
  if (o.wait) out.wait = true;
  if (o.batchDir !== undefined) out.batchDir = o.batchDir;
  if (o.deployWorker) out.deployWorker = true;
  if (o.deployJob !== undefined) out.deployJob = o.deployJob;
  if (o.deployInputs !== undefined) out.deployInputs = o.deployInputs;
  return out;
}

/**
 * The options a command's help lists, as terms and descriptions: a task's
 * help lists those of `workflow task` from here, so the two never differ.
 *
 * @param cmd the command
 * @returns its visible options
 */
function taskOptions(cmd: CommandUnknownOpts): HelpOption[] {
  const help = cmd.createHelp();
  return help.visibleOptions(cmd).map((o) => ({
    term: help.optionTerm(o),
    description: help.optionDescription(o),
  }));
}

/** `-h, --help` as `workflow task`'s help lists it (the action reads the flag itself). */
const HELP_FLAG = new Option("-h, --help", "display help for command");

const WORKFLOW_HELP =
  "\nJobs live in $SCOUT_HOME/var/jobs/<Workflow>/<task>/<name> with a .info sidecar,\n" +
  "in the layout Scout's engine uses: either side reads the other's jobs.\n" +
  "The examples run from the repository root on its bundled workflow, named by path;\n" +
  "copy it to ./workflows/Baking or $SCOUT_HOME/workflows/Baking to name it Baking.\n\n" +
  "Examples:\n" +
  "  scout-ai workflow list fixtures/workflows\n" +
  "  scout-ai workflow task fixtures/workflows/Baking cake --eggs 3\n" +
  "  scout-ai workflow task fixtures/workflows/Baking cake --help\n" +
  "  scout-ai workflow info Baking/cake/Default_b1e65931 --json | jq .status  # its job: Default_<digest>";

const TASK_HELP = "\nWORKFLOW is a name found in ./workflows/<Name>/workflow.ts or\n" +
  "$SCOUT_HOME/workflows/<Name>/workflow.ts, or a path to such a file or directory.\n" +
  "'scout-ai workflow task WORKFLOW' lists its tasks (on stdout, exit 0), 'scout-ai\n" +
  "workflow list WORKFLOW --json' as JSON; add TASK --help for a task's inputs and\n" +
  'options. After "--" every --<input> is an input, never an option: there go\n' +
  "inputs named like an option (--json, --clean…). --cpus goes with --deploy local.\n" +
  "Variables that change a run (SCOUT_JOBS_DIR…): see the README's Environment.\n\n" +
  `${FIXTURE_EXAMPLES}\n` +
  "  scout-ai workflow task fixtures/workflows/Baking      # its tasks\n" +
  "  scout-ai workflow task fixtures/workflows/Baking cake --eggs 3\n" +
  "  scout-ai workflow task fixtures/workflows/Baking whisk --help\n" +
  "  scout-ai workflow task fixtures/workflows/Baking batter --eggs 4 --json | jq .result\n" +
  "  scout-ai workflow task fixtures/workflows/Baking cake --eggs 4 --deploy local --cpus 2";

const INFO_HELP =
  "\nReads jobs written by scout-ai and by Scout's own engine (Marshal-only info reads\n" +
  "as status noinfo). Dependencies that moved are found by their last three path\n" +
  "components under the jobs roots. JOB may be a prefix of one job's name: a run\n" +
  "with non-default inputs is named Default_<digest>; the job taken is named on stderr.\n" +
  "A prefix several jobs share is refused, naming them (exit 1).\n" +
  "A job named JOB itself, its extension aside (Default.json for Default), comes first.\n" +
  "--jobs-dir may be given more than once: the directories are searched in order.\n" +
  "A job whose info says it is in progress but whose process (pid on this host) is\n" +
  "gone shows as stale; a pid on another host cannot be checked (running: null).\n" +
  '--json: "info" is the job\'s .info as it is on disk, so info.issued, info.start and\n' +
  "info.end are copied from the job's .info in Scout's format (Ruby's Time#to_s: local\n" +
  'time to the second with its offset, "2026-12-02 07:55:28 +0000"), which Scout reads\n' +
  "too; the other timestamps scout-ai prints in JSON are ISO 8601 UTC with milliseconds.\n\n" +
  `${FIXTURE_EXAMPLES}\n` +
  "  scout-ai workflow info fixtures/scout-jobs/var/jobs/Baking/bake/Default  # by Scout\n" +
  "  scout-ai workflow task fixtures/workflows/Baking batter --eggs 4 --print-path\n" +
  "  scout-ai workflow info Baking/batter/Default_21384e3c   # the job above, by a prefix of its name\n" +
  '  scout-ai workflow info "$(scout-ai workflow task fixtures/workflows/Baking whisk --eggs 4 \\\n' +
  '    --print-path)" --json | jq .status';

const LIST_HELP =
  "\nWith no argument: the workflows in ./workflows and $SCOUT_HOME/workflows, then\n" +
  "the built-in ones (ChatAnalyst), one name a line as Scout prints them; a workflow\n" +
  "of yours named like a built-in one is the one listed (and run). A directory that\n" +
  "holds <Name>/workflow.ts directories lists those workflows. A workflow's tasks:\n" +
  "workflow list WORKFLOW (with their jobs), workflow task WORKFLOW, or --json.\n\n" +
  `${FIXTURE_EXAMPLES}\n  scout-ai workflow list\n  scout-ai workflow list fixtures/workflows\n` +
  "  scout-ai workflow list fixtures/workflows/Baking   # its tasks and their jobs\n\n" +
  "--json: {version: 1, workflows: [{name, file, builtin, tasks: [names], error?}]} (a built-in\n" +
  "workflow: builtin true, file null; error, for a file that cannot be loaded, says why and\n" +
  "where, as the warning does: <message> (<file>:<line>)); with WORKFLOW,\n" +
  "{version: 1, workflow, file, tasks: [{name, type, description, inputs: [{name, type, default}],\n" +
  "jobs: [{name, path, status, running, process}]}]}.";

/**
 * Registers the `workflow` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerWorkflow(program: Command, ctx: CliContext): void {
  const wf = program.command("workflow").description(
    "run workflow tasks as persisted jobs and inspect jobs (Scout-compatible store)",
  ).addHelpText("after", fittedHelp(WORKFLOW_HELP));
  registerWorkflowTask(wf, ctx);
  registerWorkflowBatch(wf, ctx);
  registerWorkflowInfo(wf, ctx);
  registerWorkflowList(wf, ctx);
  registerWorkflowMcp(wf, ctx);
  registerNotPorted(wf, ctx); // prov: hidden, it says what to use (R158-7)
}

/** The flags of `workflow task` as commander parses them. */
type TaskFlags = Parameters<typeof deployFlags>[0] & {
  jobname?: string;
  clean?: true;
  recompute?: true;
  printPath?: true;
  jobsDir?: string;
  json?: true;
};

function registerWorkflowTask(wf: Command, ctx: CliContext): void {
  const task = wf.command("task")
    .description("run a task (unless its job is done) and print its result")
    .usage("WORKFLOW TASK [--<input> value]... [options]")
    .argument("[args...]", "workflow (name or path), task, then --<input> value pairs")
    .option("--jobname <name>", "job name (default: Default, or the jobname input)")
    .option("--clean", "remove this job's result, info and files first")
    .option("--recompute", "clean this job and all its dependencies first")
    .option("--print-path", "print the job path instead of the result")
    .option("--jobs-dir <dir>", JOBS_DIR_HELP, oneJobsDir)
    .option(
      "--json",
      "print {version, path, shortPath, status, result} (failed: status error, error, jobStatus, failed)",
    )
    .option("--deploy <mode>", "how the job graph runs: serial (default), local, slurm")
    .option("--cpus <n>", "local: CPUs to fill at once (default: the core count)")
    .option(
      "--deploy-rules <file>",
      "local, slurm: YAML rules: resources per workflow/task, chains (- reads stdin)",
    )
    .option(
      "--dry-run",
      "slurm: change no file, submit nothing; print as a bash script what a run would write and submit",
    )
    .option(
      "--wait",
      "slurm: wait for the top job; print its result as a serial run does (the job table on stderr)",
    )
    .option("--batch-dir <dir>", `slurm: ${BATCH_DIR_HELP}`)
    .addOption(new Option("--deploy-worker").hideHelp())
    .addOption(new Option("--deploy-job <path>").hideHelp().argParser(collect))
    .addOption(new Option("--deploy-inputs <dir>").hideHelp())
    .allowUnknownOption()
    // the action reads --help itself (WF TASK --help is the task's help); listed all the same
    .helpOption(false)
    .configureHelp({
      ...HELP_LAYOUT,
      visibleOptions(this: Help, c) {
        return [...Help.prototype.visibleOptions.call(this, c), HELP_FLAG];
      },
    })
    .addHelpText("after", fittedHelp(TASK_HELP))
    .action(async (args, o, cmd) => {
      ctx.exitCode = await taskCommand(args, o, cmd, ctx);
    });
  addScoutSpellings(task, TASK_SCOUT_SPELLINGS);
}

/**
 * `workflow task`'s action: WORKFLOW and TASK split from the `--<input>`
 * arguments; without WORKFLOW the help (on stdout for `--help`, else on
 * stderr as a usage error).
 *
 * @returns exit code
 */
async function taskCommand(
  args: string[],
  o: TaskFlags,
  cmd: CommandUnknownOpts,
  ctx: CliContext,
): Promise<number> {
  const marked = markEndOfOptions(args, argsAfterEnd(cmd));
  const { before, after } = splitAtEnd(marked);
  const help = before.includes("--help") || before.includes("-h");
  const rest = before.filter((a) => a !== "--help" && a !== "-h");
  const positional: string[] = [];
  while (rest.length > 0 && !rest[0]!.startsWith("-") && positional.length < 2) {
    positional.push(rest.shift()!);
  }
  // `workflow task -- WF TASK --x v`: the `--` stands before the inputs
  while (
    rest.length === 0 && after.length > 0 && !after[0]!.startsWith("-") && positional.length < 2
  ) {
    positional.push(after.shift()!);
  }
  if (marked.length > before.length) rest.push(END_OF_OPTIONS, ...after);
  const flags = optionFlags(cmd, help);
  if (positional.length === 0) {
    // with the addHelpText sections (helpInformation() leaves them out); a usage error
    // (no WORKFLOW) prints it on stderr, --help on stdout
    cmd.outputHelp({ error: !help });
    return help ? 0 : 2;
  }
  return await runWorkflowTask({
    // `workflow task WF` alone lists its tasks; anything more wants a TASK
    onlyWorkflow: positional.length === 1 && rest.length === 0 &&
      Object.values(o).every((v) => v === undefined),
    workflow: positional[0],
    ...(positional[1] !== undefined ? { task: positional[1] } : {}),
    args: rest,
    ...(o.jobname !== undefined ? { jobname: o.jobname } : {}),
    clean: Boolean(o.clean),
    recompute: Boolean(o.recompute),
    printPath: Boolean(o.printPath),
    ...(o.jobsDir !== undefined ? { jobsDir: o.jobsDir } : {}),
    json: Boolean(o.json),
    help,
    helpOptions: taskOptions(cmd),
    optionFlags: flags.all,
    givenOptions: flags.given,
    ...deployFlags(o),
  }, ctx.io);
}

/**
 * The long flags of the options of `workflow task` and of its parents (the
 * global `--debug`, `--log`…), with `--help`: before `--` each takes its
 * flag from any input named like it. `given`: those on the command line.
 */
function optionFlags(cmd: CommandUnknownOpts, help: boolean): { all: string[]; given: string[] } {
  const all = ["--help"];
  const given = help ? ["--help"] : [];
  for (let c: CommandUnknownOpts | null = cmd; c !== null; c = c.parent) {
    for (const o of c.options) {
      if (o.long === undefined) continue;
      all.push(o.long);
      if (c.getOptionValueSource(o.attributeName()) === "cli") given.push(o.long);
    }
  }
  return { all, given };
}

/**
 * What followed the first `--` of the command line: commander passes it on
 * without the `--`, which only the root's `rawArgs` (the arguments it
 * parsed; untyped) still holds.
 */
function argsAfterEnd(cmd: CommandUnknownOpts): string[] {
  let root = cmd;
  while (root.parent !== null) root = root.parent;
  const rawArgs = (root as { rawArgs?: unknown }).rawArgs;
  const raw = Array.isArray(rawArgs) ? rawArgs.map(String) : [];
  const k = raw.indexOf(END_OF_OPTIONS);
  return k < 0 ? [] : raw.slice(k + 1);
}

function registerWorkflowInfo(wf: Command, ctx: CliContext): void {
  const info = wf.command("info")
    .description("show a job's status, inputs, dependencies, messages and files")
    .argument("<job>", "job path, short path Workflow/task/name, .info file, or a name prefix")
    .option(
      "--jobs-dir <dir>",
      "jobs directory to resolve short paths in (repeatable; searched in order)",
      collect,
    )
    .option(
      "--json",
      "print {version, path, shortPath, status, done, running, info, …} (not found: status notfound)",
    )
    .addHelpText("after", fittedHelp(INFO_HELP));
  addScoutSpellings(info, INFO_SCOUT_SPELLINGS)
    .action(async (job, o) => {
      ctx.exitCode = await runWorkflowInfo({
        job,
        ...(o.jobsDir !== undefined ? { jobsDirs: o.jobsDir } : {}),
        json: Boolean(o.json),
      }, ctx.io);
    });
}

function registerWorkflowList(wf: Command, ctx: CliContext): void {
  wf.command("list")
    .description("list workflows, one name a line; with WORKFLOW, its tasks and jobs")
    .argument("[workflow]", "workflow name or path, or a directory of workflows")
    .option(
      "--jobs-dir <dir>",
      "jobs directory to list WORKFLOW's jobs from (repeatable; searched in order)",
      collect,
    )
    .option("--json", "print JSON (its shape: below)")
    .addHelpText("after", fittedHelp(LIST_HELP))
    .action(async (workflow, o) => {
      ctx.exitCode = await runWorkflowList({
        ...(workflow !== undefined ? { workflow } : {}),
        ...(o.jobsDir !== undefined ? { jobsDirs: o.jobsDir } : {}),
        json: Boolean(o.json),
      }, ctx.io);
    });
}
