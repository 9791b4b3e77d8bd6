/**
 * `workflow task --deploy slurm`: writes the batch directories of the
 * pending jobs and submits them (or, `--dry-run`, prints what a run would
 * do), prints the job → SLURM id table (or `--json`), and with `--wait`
 * waits for the top job.
 *
 * @module
 */
import { dirname } from "node:path";
import { accessSync, constants, existsSync, mkdirSync, readdirSync } from "node:fs";
import { isScoutError, plainMessage, ScoutError } from "../errors.ts";
import type { Job } from "../workflow/mod.ts";
import type {
  BatchEnd,
  BatchUnit,
  SlurmDeployReport,
  SqueueRetry,
} from "../workflow/deploy/mod.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import { canRedrawStderr, statusLine } from "./status_line.ts";
import type { DeployOptions, WorkflowTaskOptions } from "./workflow_task_options.ts";
import { rulesOf, workerArgv } from "./workflow_deploy.ts";
import { type DeployInputs, slurmBatchBase } from "./workflow_deploy_inputs.ts";

/** What the batch jobs are told of the input files saved for them. */
type SavedForWorkers = Pick<DeployInputs, "args" | "script">;
import { reportEnd } from "./workflow_deploy_end.ts";
import { printResult, resultJsonValue } from "./workflow_task_result.ts";
import { jsonText } from "../util/json_text.ts";

const deployLib = () => import("../workflow/deploy/mod.ts");

function checkStore(top: Job, io: Io, dryRun: boolean): void {
  const root = top.store.createRoot;
  try {
    // a dry run creates nothing: a store still to be made is checked by the real run
    if (!dryRun) mkdirSync(root, { recursive: true });
    if (!dryRun || existsSync(root)) accessSync(root, constants.W_OK);
  } catch {
    throw new ScoutError(
      "deploy_failed",
      `Job store "${root}" is not writable; batch jobs need it`,
      {
        file: root,
      },
    );
  }
  // Only when jobs really go to the cluster (a dry run shows the scripts).
  if (!dryRun && (root === "/tmp" || root.startsWith("/tmp/"))) {
    warn(io, `the job store ${root} is under /tmp: every node of the cluster must see it`);
  }
}

/** A unit of a SLURM deploy as the table and `--json` show it. */
interface UnitRow {
  job: string;
  path: string;
  jobs: string[];
  batchDir: string;
  slurmId: string | null;
  dependencies: string[];
  status: BatchUnit["status"];
}

/** A SLURM deploy as submitted (or, with `--dry-run`, as it would be). */
export interface Submission {
  top: Job;
  report: SlurmDeployReport;
  rows: UnitRow[];
  /** The batch base directory. */
  base: string;
  /** Jobs a dry run's `--clean`/`--recompute` would remove (paths). */
  wouldClean: string[];
}

/**
 * `--deploy slurm`: writes batch directories, submits them (or prints the
 * commands with `--dry-run`), prints the job → SLURM id table, and with
 * `--wait` waits for the top job, then prints its result as a serial run
 * does (the table then goes to stderr).
 *
 * @param top the top job
 * @param opts command options
 * @param io I/O
 * @param redo jobs a dry run's `--clean`/`--recompute` would remove (counted as not done)
 * @param inputs the input files saved for the batch jobs (their options; a dry run's script lines)
 * @returns exit code
 */
export async function runSlurmDeploy(
  top: Job,
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
  redo: readonly Job[] = [],
  inputs: SavedForWorkers = { args: [] },
): Promise<number> {
  checkStore(top, io, Boolean(opts.dryRun));
  const waiting = Boolean(opts.wait && !opts.dryRun);
  // under --wait stdout is for the result, as in a serial run
  const table = waiting ? io.stderr : io.stdout;
  const { sub, failure } = await submitSlurm(top, opts, io, { redo, inputs });
  if (failure !== undefined) {
    // stopped part-way: the units already in SLURM are printed, as a submission is (R79-4)
    if (opts.json) writeSlurmJson(top, sub, opts, io, { error: plainMessage(failure) });
    else printSubmission(sub, false, table);
    throw failure;
  }
  if (!opts.json) printSubmission(sub, Boolean(opts.dryRun), table);
  if (!waiting) {
    if (opts.json) writeSlurmJson(top, sub, opts, io, {});
    return 0;
  }
  return await waitAndPrint(sub, opts, io);
}

/**
 * `--wait`: waits for the top job's unit (none when the top job was done);
 * a failure is reported as it ended, a success prints the result (its path
 * with `--print-path`; `result` in `--json`).
 */
async function waitAndPrint(
  sub: Submission,
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
): Promise<number> {
  const { top } = sub;
  let end: BatchEnd | undefined;
  let result: unknown;
  const lib = await import("../workflow/mod.ts");
  try {
    end = sub.report.top !== undefined ? await waitWithProgress(sub, io) : undefined;
    const code = end !== undefined ? await reportEnd(sub, end, io) : 0;
    if (code !== 0) {
      if (opts.json) writeSlurmJson(top, sub, opts, io, { end: end! });
      return code;
    }
    // read the job's directory first: on NFS a listing revalidates a cached "no such file"
    // for a result another node wrote
    try {
      readdirSync(dirname(top.path));
    } catch { /* no directory: the load below says the result is missing */ }
    result = await lib.loadJobResult(top);
  } catch (e) {
    // the jobs were submitted: a script still learns their ids and batch directories
    if (opts.json) {
      writeSlurmJson(top, sub, opts, io, { ...(end ? { end } : {}), error: plainMessage(e) });
    }
    throw e;
  }
  if (opts.json) {
    writeSlurmJson(top, sub, opts, io, {
      ...(end ? { end } : {}),
      result: resultJsonValue(lib, top, result),
    });
  } else printResult(lib, top, result, opts, io);
  return 0;
}

/** `--json`: the submission, with how the wait ended (`end`) or why it failed (`error`). */
function writeSlurmJson(
  top: Job,
  sub: Submission,
  opts: DeployOptions,
  io: Io,
  outcome: { end?: BatchEnd; error?: string; result?: unknown },
): void {
  io.stdout.write(
    jsonText({
      version: 1,
      deploy: "slurm",
      dryRun: Boolean(opts.dryRun),
      path: top.path,
      shortPath: top.shortPath,
      batchBase: sub.base,
      units: sub.rows,
      ...(opts.dryRun ? { wouldClean: sub.wouldClean, script: sub.report.script ?? "" } : {}),
      ...outcome,
    }) + "\n",
  );
}

/**
 * Writes the batch directories of the pending jobs and submits them (unless
 * a dry run). When sbatch fails part-way, the submission so far and the error.
 */
async function submitSlurm(
  top: Job,
  opts: WorkflowTaskOptions & DeployOptions,
  io: Io,
  { redo, inputs }: { redo: readonly Job[]; inputs: SavedForWorkers },
): Promise<{ sub: Submission; failure?: ScoutError }> {
  const { deploySlurm } = await deployLib();
  const rules = await rulesOf(opts, io, top);
  const base = await slurmBatchBase(opts, io);
  const argv = await workerArgv(opts, io);
  const submission = (report: SlurmDeployReport): Submission => ({
    top,
    report,
    rows: report.units.map(unitRow),
    base,
    wouldClean: redo.map((j) => j.path),
  });
  try {
    const report = await deploySlurm(top, {
      ...(rules !== undefined ? { rules } : {}),
      batchBase: base,
      command: (jobs) => argv([...inputs.args, ...jobs.flatMap((j) => ["--deploy-job", j.path])]),
      cwd: io.cwd,
      env: io.env,
      ...(inputs.script !== undefined ? { prelude: inputs.script } : {}),
      ...(opts.dryRun ? { dryRun: true, redo: new Set(redo.map((j) => j.path)) } : {}),
    });
    if (report.squeueFailure !== undefined) {
      const ids = report.units.flatMap((u) => u.stateUnknown ? [u.stateUnknown.id] : []);
      const one = ids.length === 1;
      warn(
        io,
        `squeue failed (${report.squeueFailure}): the state of SLURM job${one ? "" : "s"} ` +
          `${ids.join(", ")} is unknown; the script submits ${one ? "its unit" : "their units"} ` +
          "again, a real run asks squeue first",
      );
    }
    warnWithheld(report, io);
    return { sub: submission(report) };
  } catch (e) {
    const partial = isScoutError(e) ? e.report as SlurmDeployReport | undefined : undefined;
    if (partial === undefined) throw e;
    warnWithheld(partial, io);
    return { sub: submission(partial), failure: e as ScoutError };
  }
}

/**
 * Names (never the values of) the submitting shell's settings the batch
 * scripts written or shown left out as credentials (R146-5): a batch job
 * has them only from SLURM's copy of the submitting environment.
 */
function warnWithheld(report: SlurmDeployReport, io: Io): void {
  const names = report.withheldEnv ?? [];
  const written = report.units.some((u) =>
    u.status === "submitted" || u.status === "dry-run" || u.status === "failed"
  );
  if (names.length === 0 || !written) return;
  warn(
    io,
    `left out of the batch scripts as credentials (by their name or look): ${names.join(", ")}; ` +
      "a batch job gets them only from the submitting environment SLURM copies (sbatch's default " +
      "--export=ALL; none with --export=NONE or SBATCH_EXPORT=NONE): else set them in the nodes' " +
      "own environment",
  );
}

/** A unit as the table and `--json` show it. */
function unitRow(u: BatchUnit): UnitRow {
  return {
    job: u.jobs.at(-1)!.shortPath,
    path: u.jobs.at(-1)!.path,
    jobs: u.jobs.map((j) => j.shortPath),
    batchDir: u.dir,
    slurmId: u.slurmId ?? null,
    dependencies: u.after.map((a) => a.slurmId ?? a.name),
    status: u.status,
  };
}

/** The sbatch script of a dry run, else a `job  SLURM id  status` line per unit, to `out`. */
function printSubmission(
  { top, report, rows }: Submission,
  dryRun: boolean,
  out: Io["stdout"],
): void {
  if (dryRun) out.write(report.script ?? "");
  else {
    for (const r of rows) out.write(`${r.job}\t${r.slurmId ?? "-"}\t${r.status}\n`);
    if (rows.length === 0) out.write(`${top.shortPath}\tdone\n`);
  }
}

/** `--wait`: polls until the top job's unit ends, the units' state counts on the status line. */
async function waitWithProgress({ report }: Submission, io: Io): Promise<BatchEnd> {
  const { waitForUnit, WAIT_RETRY } = await deployLib();
  const line = statusLine(io);
  try {
    return await waitForUnit(report.top!, {
      env: io.env,
      all: report.units,
      ...waitRetry(io, WAIT_RETRY),
      ...(canRedrawStderr(io)
        ? {
          onPoll: (c: Record<string, number>) =>
            line.show(Object.entries(c).map(([k, n]) => `${n} ${k.toLowerCase()}`).join(", ")),
        }
        : {}),
    });
  } finally {
    line.clear({ always: true }); // also before an error's line
  }
}

/**
 * `SCOUT_SLURM_WAIT_RETRIES=N`: how many `squeue` calls a failing poll makes
 * before `--wait` fails, at the wait's own pauses (`WAIT_RETRY`: 9 calls, 1 s
 * doubled, ~4 min).
 */
function waitRetry(io: Io, wait: SqueueRetry): { retry?: SqueueRetry } {
  const n = Number(io.env.SCOUT_SLURM_WAIT_RETRIES);
  return Number.isInteger(n) && n >= 1 ? { retry: { ...wait, attempts: n } } : {};
}
