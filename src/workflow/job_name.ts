/**
 * Job naming (`workflow.md` §2.1–§2.2): a job's id (given, the `jobname`
 * input's value, or `Default`), its shortening the Scout way, its validity
 * as a path component, the digest name of a job with non-default provided
 * inputs (shortened by bytes where a file system could not hold it), and
 * where the named job lives in a store.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";
import { md5hex } from "../util/hash.ts";
import { fitBytes, NAME_MAX, utf8Length } from "../util/name_bytes.ts";
import { exists } from "../util/fs.ts";
import type { Task } from "./define.ts";
import { digestStr } from "./digest.ts";
import type { Job } from "./job_types.ts";
import { plain } from "./job_refs.ts";
import { resultExtension } from "./result.ts";
import { infoPath, jobPathIn, type JobStore } from "./store.ts";

const MAX_ID = 150;

/**
 * The most bytes of a job's file name: its longest sidecar, `X.files`, must
 * fit in a file name too (`X.info` and the tmp result `.X` are shorter).
 */
export const MAX_JOB_NAME_BYTES = NAME_MAX - ".files".length;

/**
 * Ruby's `/(\..{2,9})$/`: `.` is any character but LF, `$` is the end or
 * before a LF, characters are code points (the `u` flag).
 */
const EXTENSION = /(\.[^\n]{2,9})(?=\n|$)/u;

/**
 * Shortens a job name longer than 150 characters the Scout way (Ruby's
 * `Path.sanitize_filename(id, 150)`): `<head>--<length>--<md5[0,5]><extension>`,
 * lengths counted in characters (code points, as Ruby counts them), so a
 * surrogate pair is never cut.
 *
 * @param id the job name
 * @returns the name, at most 150 characters
 *
 * @example
 * ```ts
 * import { truncateJobName } from "./job_name.ts";
 * truncateJobName("short"); // "short"
 * truncateJobName("x".repeat(200)).length; // 150
 * ```
 */
export function truncateJobName(id: string): string {
  const chars = [...id];
  if (chars.length <= MAX_ID) return id;
  const ext = EXTENSION.exec(id)?.[1] ?? "";
  const suffix = `--${chars.length}--${md5hex(id).slice(0, 5)}${ext}`;
  return chars.slice(0, Math.max(0, MAX_ID - [...suffix].length)).join("") + suffix;
}

/**
 * Checks that a job name is a single path component.
 *
 * @param id the job name
 * @param where the task it names a job of (`Workflow/task`), for the message
 * @throws ScoutError `parameter` for an empty name, `.`, `..`, or one with `/` or NUL
 */
export function checkJobName(id: string, where: string): void {
  if (id === "" || id === "." || id === ".." || id.includes("/") || id.includes("\0")) {
    throw new ScoutError(
      "parameter",
      `Job name "${id}" of ${where} is not valid: it must be a single path component` +
        (id.includes("/") ? ' (no "/")' : ""),
      { jobname: id },
    );
  }
}

/** What the store keeps beside a job `X` (`X.info`, `X.files/`, `X.md5`) or skips listing (`X.lock`). */
const SIDECAR = /\.(?:info|files|lock|md5)$/i;

/**
 * Checks the name of a job a model asked for (a workflow tool's `jobname`,
 * else its task's `jobname` input) [TS-FIX]: besides {@link checkJobName}, it
 * must not name another job's sidecar (`X.info`, `X.files`, `X.md5`,
 * `X.lock`, or `.X`, a job's tmp result path) nor hold a `\` (`shortPath`
 * splits on it).
 *
 * @param task the task
 * @param given the `jobname` argument, if any
 * @param provided the other arguments (inputs)
 * @param where `Workflow/task`, for the message
 * @throws ScoutError `parameter`
 */
export function checkModelJobName(
  task: Task,
  given: string | undefined,
  provided: Record<string, unknown>,
  where: string,
): void {
  if (given === undefined && !task.inputs.some((i) => i.jobname)) return;
  const id = given ?? jobIdOf(task, undefined, provided);
  checkJobName(id, where);
  const why = id.includes("\\")
    ? 'no "\\"'
    : id.startsWith(".")
    ? 'no leading "." (a job\'s temporary file)'
    : SIDECAR.test(id)
    ? `no ending "${SIDECAR.exec(id)![0]}" (a job's sidecar file)`
    : null;
  if (why === null) return;
  throw new ScoutError("parameter", `Job name "${id}" of ${where} is not valid: ${why}`, {
    jobname: id,
  });
}

/**
 * A job's id before inputs are assigned (§2.1): the given name, else the
 * provided value of the task's `jobname` input, else `Default`; shortened.
 *
 * @param task the task
 * @param given the job name asked for, if any
 * @param provided provided inputs
 * @returns the id
 */
export function jobIdOf(
  task: Task,
  given: string | undefined,
  provided: Record<string, unknown>,
): string {
  let id = given;
  const jobnameInput = task.inputs.find((i) => i.jobname);
  if (id === undefined && jobnameInput !== undefined) {
    const v = plain(provided[jobnameInput.name]);
    if (v !== undefined && v !== null) id = String(v);
  }
  return truncateJobName(id ?? "Default");
}

/** What {@link jobName} names a job from. */
export interface JobNameParts {
  /** The job's id ({@link jobIdOf}). */
  id: string;
  /** The task (its `jobname` input, result type and extension). */
  task: Task;
  /** Provided inputs. */
  provided: Record<string, unknown>;
  /** Non-default inputs, own and dependencies', without override keys. */
  nonDefault: string[];
  /** The values the input digest is taken of (paths as path references). */
  digestValues: unknown[];
  /** The dependencies. */
  deps: Job[];
  /** Whether an override given to this job replaced a dependency. */
  overridden: boolean;
  /** Environment (`~/` in digested paths). */
  env: Record<string, string | undefined>;
}

/**
 * A job's file name (§2.2): the id, with `_<digest>` of its inputs and
 * dependencies when a non-default input was provided (other than a
 * `jobname` input equal to the id) or an override replaced a dependency,
 * then the result type's extension; a name over 249 bytes is shortened by
 * bytes ({@link fitJobName}, [TS-FIX]).
 *
 * @param parts the id, task, inputs, dependencies
 * @returns the name
 */
export function jobName(parts: JobNameParts): string {
  const { id, task, provided } = parts;
  const jobnameInput = task.inputs.find((i) => i.jobname);
  const nonDefaultProvided = parts.nonDefault.filter((n) =>
    provided[n] !== undefined &&
    !(jobnameInput !== undefined && n === jobnameInput.name &&
      String(plain(provided[n])) === id)
  );
  let tail = "";
  if (nonDefaultProvided.length > 0 || parts.overridden) {
    const dctx = { env: parts.env };
    const inputDigest = digestStr(parts.digestValues, dctx);
    tail = `_${md5hex(digestStr({ inputs: inputDigest, dependencies: parts.deps }, dctx))}`;
  }
  const ext = resultExtension(task.type, task.extension);
  if (ext !== null) tail += "." + ext;
  return fitJobName(id, tail);
}

/**
 * A job's file name, `id` + `tail` (its `_<digest>` and extension) as Scout
 * names it; [TS-FIX] only when that name, or its `.files` sidecar, would pass
 * 255 bytes — a name Scout cannot create, counting characters (150 CJK
 * characters are 450 bytes) — is the id shortened by bytes instead: its
 * longest start (whole code points) that fits, `--`, the md5 of the part cut,
 * then the id's extension (`/(\..{2,9})$/`, as the Scout rule keeps it) and
 * the tail, at most {@link MAX_JOB_NAME_BYTES} bytes.
 *
 * @param id the job's id (already shortened the Scout way)
 * @param tail `_<digest>` and `.<extension>`, either possibly empty
 * @returns the file name
 *
 * @example
 * ```ts
 * import { fitJobName } from "./job_name.ts";
 * fitJobName("Default", ".json"); // "Default.json"
 * fitJobName("漢".repeat(100), ".json"); // "漢" × 70 + "--" + md5 (hex) of "漢" × 30 + ".json"
 * ```
 */
export function fitJobName(id: string, tail: string): string {
  if (utf8Length(id) + utf8Length(tail) <= MAX_JOB_NAME_BYTES) return id + tail;
  const m = EXTENSION.exec(id);
  const ext = m?.[1] ?? "";
  const stem = m === null ? id : id.slice(0, m.index) + id.slice(m.index + ext.length);
  const room = MAX_JOB_NAME_BYTES - utf8Length(ext) - utf8Length(tail);
  return fitBytes(stem, room, "--") + ext + tail;
}

/**
 * Where a named job lives: the first root of the store that holds it (a
 * result or an info), else under the store's root for new jobs.
 *
 * @param store the store
 * @param wf workflow name
 * @param task task name
 * @param name job name
 * @returns the job path
 */
export function locateJob(store: JobStore, wf: string, task: string, name: string): string {
  for (const root of store.roots) {
    const p = jobPathIn(root, wf, task, name);
    if (exists(p) || exists(infoPath(p))) return p;
  }
  return jobPathIn(store.createRoot, wf, task, name);
}
