/**
 * `scout-ai workflow batch list|tail|clean` (Scout's `scout batch …`): the
 * batch directories `workflow task --deploy slurm` wrote, their SLURM state
 * and the status of the job each runs.
 *
 * `--json` shapes (version 1): `list` → `{"version":1,"batchBase","batches":
 * [{"name","dir","slurmId","state","reason","exitStatus","jobs","job",
 * "jobStatus","note","live"}]}`; `clean` → `{"version":1,"removed":[dir…],
 * "dryRun"}`.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { ScoutError, usageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import type { ListBatchesOptions } from "../workflow/deploy/mod.ts";
import { statusStyle } from "./workflow_common.ts";
import { checkJobsDir } from "./jobs_dir.ts";
import { fittedHelp } from "./help_layout.ts";
import { columnWidth, padToWidth } from "../util/display_width.ts";
import { jsonText } from "../util/json_text.ts";

const deployLib = () => import("../workflow/deploy/mod.ts");

/** Options of the `workflow batch` commands. */
export interface WorkflowBatchOptions {
  /** `--batch-dir`. */
  batchDir?: string;
  /** `--json`. */
  json?: boolean;
  /** `tail`: which batch (dir, name, SLURM id, job). */
  target?: string;
  /** `tail -n`. */
  lines?: string;
  /** `tail --stdout`: std.out instead of std.err. */
  stdout?: boolean;
  /** `clean --dry-run`. */
  dryRun?: boolean;
}

/**
 * The batch directories of `--batch-dir`, else of the default base. A
 * `--batch-dir` given and missing is an error naming it, as `--jobs-dir` is
 * (R137-7: a typo listed no batches, exit 0); the default base missing holds
 * none — nobody typed it.
 */
async function entries(opts: WorkflowBatchOptions, io: Io, how: ListBatchesOptions = {}) {
  const { batchBase, listBatches } = await deployLib();
  const given = opts.batchDir !== undefined
    ? checkJobsDir(opts.batchDir, io.cwd, { flag: "--batch-dir" })
    : undefined;
  const base = batchBase(given, io.env);
  return { base, list: await listBatches(base, io.env, how) };
}

/**
 * How `tail` asks SLURM: the log is local and the state only tells which
 * batch is live, so a `squeue` that cannot answer is tried twice, then
 * warned about in one line and the log shown all the same (R94-6).
 */
function tailSlurm(io: Io): ListBatchesOptions {
  return {
    retry: { attempts: 2 },
    onSlurmFailure: (e) => warn(io, `SLURM state unknown (${e.message})`),
  };
}

function stateStyle(state: string): "green" | "red" | "yellow" | "dim" {
  if (state === "COMPLETED") return "green";
  if (state === "PENDING" || state === "RUNNING" || state === "CONFIGURING") return "yellow";
  if (state === "UNSUBMITTED" || state === "UNKNOWN") return "dim";
  return "red";
}

/**
 * `workflow batch list`.
 *
 * @param opts options
 * @param io I/O
 * @returns exit code
 */
export async function runBatchList(opts: WorkflowBatchOptions, io: Io): Promise<number> {
  const { base, list } = await entries(opts, io);
  if (opts.json) {
    const batches = list.map(({ mtime: _m, ...e }) => e);
    io.stdout.write(jsonText({ version: 1, batchBase: base, batches }) + "\n");
    return 0;
  }
  if (list.length === 0) {
    io.stderr.write(`No batch directories in ${base}\n`);
    return 0;
  }
  const w = columnWidth(list.map((e) => e.job));
  for (const e of list) {
    const id = (e.slurmId ?? "-").padEnd(8);
    const state = paint(io, "stdout", stateStyle(e.state), e.state.padEnd(11));
    const status = paint(io, "stdout", statusStyle(e.jobStatus), e.jobStatus.padEnd(8));
    const note = e.note !== "" ? `  ${e.note}` : "";
    io.stdout.write(`${id} ${state} ${status} ${note ? padToWidth(e.job, w) + note : e.job}\n`);
  }
  return 0;
}

/**
 * `workflow batch tail TARGET`: the last lines of a batch job's `std.err`
 * (or `std.out`); shown also when `squeue` cannot answer (with a warning).
 *
 * @param opts options
 * @param io I/O
 * @returns exit code
 */
export async function runBatchTail(opts: WorkflowBatchOptions, io: Io): Promise<number> {
  // checked before SLURM is asked (R94-6)
  const n = opts.lines !== undefined ? Number(opts.lines) : 20;
  if (!Number.isInteger(n) || n < 0) throw usageError(`-n "${opts.lines}" must be a whole number`);
  const { findBatch } = await deployLib();
  const { base, list } = await entries(opts, io, tailSlurm(io));
  if (opts.target === undefined && list.length === 0) {
    io.stderr.write(`No batch directories in ${base}\n`);
    return 0;
  }
  const entry = opts.target !== undefined
    ? findBatch(list, opts.target, resolve(io.cwd, opts.target))
    : list.at(-1);
  if (entry === undefined) {
    throw new ScoutError(
      "job_not_found",
      opts.target !== undefined
        ? `No batch directory in ${base} matches "${opts.target}"`
        : `No batch directories in ${base}`,
    );
  }
  const file = join(entry.dir, opts.stdout ? "std.out" : "std.err");
  // which batch job this is: the newest, or the one the target matched
  io.stderr.write(`==> ${file} (SLURM job ${entry.slurmId ?? "-"}, ${entry.job}) <==\n`);
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    const note = entry.note !== "" ? `: ${entry.note}` : "";
    io.stderr.write(
      `${file} does not exist${entry.live ? " yet" : ""} (state ${entry.state}${note})\n`,
    );
    return 0;
  }
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const shown = n === 0 ? [] : lines.slice(-n);
  io.stdout.write(shown.map((l) => l + "\n").join(""));
  return 0;
}

/**
 * `workflow batch clean`: removes batch directories SLURM will not run any
 * more, and the input files saved for batch jobs (`<base>/inputs/`) that no
 * batch directory left names.
 *
 * @param opts options
 * @param io I/O
 * @returns exit code
 */
export async function runBatchClean(opts: WorkflowBatchOptions, io: Io): Promise<number> {
  const { cleanBatches, cleanSavedInputs, savedInputsBase } = await deployLib();
  const { base, list } = await entries(opts, io);
  const dryRun = Boolean(opts.dryRun);
  const gone = await cleanBatches(list, { dryRun });
  // the input files saved for batch jobs (R109-1): those no batch job left names
  const left = list.filter((e) => !gone.includes(e));
  const removed = [
    ...gone.map((e) => e.dir),
    ...cleanSavedInputs(savedInputsBase(base), left, { dryRun }),
  ];
  if (opts.json) {
    io.stdout.write(jsonText({ version: 1, removed, dryRun }) + "\n");
  } else {
    for (const dir of removed) {
      io.stdout.write(`${opts.dryRun ? "would remove" : "removed"} ${dir}\n`);
    }
    const kept = left.length;
    if (kept > 0) io.stderr.write(`kept ${kept} batch job(s) SLURM may still run\n`);
  }
  return 0;
}

/** `--batch-dir`, wherever it is an option: the environment's default, then SCOUT_HOME's. */
export const BATCH_DIR_HELP =
  "batch directories (default: $SCOUT_BATCH_DIR, else $SCOUT_HOME/var/batch)";

const BATCH_HELP =
  "\nBatch directories live in $SCOUT_HOME/var/batch (or SCOUT_BATCH_DIR, or --batch-dir),\n" +
  "one per job: command.batch, std.out, std.err, job.id, exit.status, dependencies.list.\n\n" +
  "Examples:\n" +
  "  scout-ai workflow batch list\n" +
  "  scout-ai workflow batch list --json | jq '.batches[] | .state'\n" +
  "  scout-ai workflow batch tail -n 50\n" +
  "  scout-ai workflow batch clean --dry-run";

const LIST_HELP =
  "\nA job whose dependency failed shows CANCELLED with 'a dependency failed'.\n\n" +
  "Examples:\n  scout-ai workflow batch list\n  scout-ai workflow batch list --json | jq .batches";

const TAIL_HELP = "\nWith no TARGET: the newest batch job. TARGET is matched whole first: the\n" +
  "batch directory (path or name), the SLURM id (1234: whole only), or a job it runs (path or\n" +
  "short path, Baking/cake/Default); else as the start of exactly one directory name or job\n" +
  "short path (Baking/cake). Nothing matching, or a start shared by several, is an error (exit 1).\n" +
  "stderr names the file shown. A resubmitted job's earlier logs are kept as std.err.<SLURM id>.\n\n" +
  "Examples:\n  scout-ai workflow batch tail\n  scout-ai workflow batch tail --stdout -n 100";

const CLEAN_HELP = "\nPending and running batch jobs are kept.\n\n" +
  "Examples:\n  scout-ai workflow batch clean --dry-run\n  scout-ai workflow batch clean";

/**
 * Registers `workflow batch list|tail|clean`.
 *
 * @param wf the `workflow` command
 * @param ctx invocation context
 */
export function registerWorkflowBatch(wf: Command, ctx: CliContext): void {
  const batch = wf.command("batch").description(
    "SLURM batch jobs written by 'workflow task --deploy slurm': list, tail, clean",
  ).addHelpText("after", fittedHelp(BATCH_HELP));
  registerBatchList(batch, ctx);
  registerBatchTail(batch, ctx);
  registerBatchClean(batch, ctx);
}

function registerBatchList(batch: Command, ctx: CliContext): void {
  batch.command("list")
    .description("list batch jobs: SLURM id, SLURM state, job status, job")
    .option("--batch-dir <dir>", BATCH_DIR_HELP)
    .option("--json", "print {version, batchBase, batches: [...]}")
    .addHelpText("after", fittedHelp(LIST_HELP))
    .action(async (o) => {
      ctx.exitCode = await runBatchList({
        ...(o.batchDir !== undefined ? { batchDir: o.batchDir } : {}),
        json: Boolean(o.json),
      }, ctx.io);
    });
}

function registerBatchTail(batch: Command, ctx: CliContext): void {
  batch.command("tail")
    .description("print the last lines of a batch job's std.err (default: the newest)")
    .argument("[target]", "batch dir or its name, SLURM id, or job (path or short path)")
    .option("-n, --lines <n>", "how many lines (default 20)")
    .option("--stdout", "std.out instead of std.err")
    .option("--batch-dir <dir>", BATCH_DIR_HELP)
    .addHelpText("after", fittedHelp(TAIL_HELP))
    .action(async (target, o) => {
      ctx.exitCode = await runBatchTail({
        ...(target !== undefined ? { target } : {}),
        ...(o.lines !== undefined ? { lines: o.lines } : {}),
        stdout: Boolean(o.stdout),
        ...(o.batchDir !== undefined ? { batchDir: o.batchDir } : {}),
      }, ctx.io);
    });
}

function registerBatchClean(batch: Command, ctx: CliContext): void {
  batch.command("clean")
    .description("remove batch directories SLURM will not run any more (ended or never submitted)")
    .option("--dry-run", "only print what would be removed")
    .option("--batch-dir <dir>", BATCH_DIR_HELP)
    .option("--json", "print {version, removed: [dir...], dryRun}")
    .addHelpText("after", fittedHelp(CLEAN_HELP))
    .action(async (o) => {
      ctx.exitCode = await runBatchClean({
        dryRun: Boolean(o.dryRun),
        ...(o.batchDir !== undefined ? { batchDir: o.batchDir } : {}),
        json: Boolean(o.json),
      }, ctx.io);
    });
}
