/**
 * The `.info` sidecar (`workflow.md` §3.2, §7.3): a JSON object rewritten
 * atomically on every change, in the format Scout's engine reads and writes.
 *
 * Reader: tolerant — missing fields, unknown statuses, truncated input arrays,
 * `[workflow, task, path]` dependency entries, and non-JSON (Ruby Marshal or
 * truncated) files, which read as `{status: "noinfo"}` with the problem named.
 * Writer: the merge rule (arrays append, objects merge, other values replace;
 * `message` appends to `messages`), unknown keys preserved.
 *
 * @module
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ScoutError } from "../errors.ts";
import { cannotText } from "../util/errno_text.ts";
import { tempPathFor, writeFileAtomicSync } from "../util/fs.ts";
import { notRegularKind, readRegularFile, readRegularFileSync } from "../util/regular_file.ts";
import { infoPath } from "./store.ts";
import { jsonText } from "../util/json_text.ts";

/**
 * A status word (`workflow.md` §4): `waiting`, `queue`, `setup`, `start`,
 * `streaming`, `done`, `error`, `aborted`, `cleaned`, `noinfo`, or any custom
 * word logged by a task; readers accept any string.
 */
export type JobStatus = string;

/**
 * Contents of a `.info` file. Every field is optional on read; unknown keys
 * are kept and written back untouched.
 */
export interface JobInfo {
  /** Current status. */
  status?: JobStatus;
  /** Run start (Ruby time). */
  issued?: string;
  /** Pid of the process running the body. */
  pid?: number;
  /** Host of that process. */
  pid_hostname?: string;
  /** Task name. */
  task_name?: string;
  /** Workflow name. */
  workflow?: string;
  /** Raw provided values of the non-default inputs (dependency inputs included). */
  provided_inputs?: Record<string, unknown>;
  /** Names of the non-default inputs (own + dependencies'). */
  non_default_inputs?: string[];
  /** Own coerced inputs in declaration order (long arrays truncated). */
  inputs?: unknown[];
  /** Own input names, same order as `inputs`. */
  input_names?: string[];
  /** Result type. */
  type?: string;
  /** Absolute paths of the direct dependencies (Scout may write `[wf, task, path]`). */
  dependencies?: (string | unknown[])[];
  /** Body start (Ruby time). */
  start?: string;
  /** End (Ruby time). */
  end?: string;
  /** Log messages. */
  messages?: string[];
  /** Seconds from start to end. */
  time_elapsed?: number;
  /** Seconds from issue to end. */
  total_time_elapsed?: number;
  /** Base64 Ruby Marshal dump of the exception. */
  exception?: string;
  /** Backtrace of the error. */
  backtrace?: string[];
  /** Any other key (preserved). */
  [key: string]: unknown;
}

/** Result of reading an info file: the info (null when the file is missing) and any problem. */
export interface InfoRead {
  /** Parsed info; `{status: "noinfo"}` when the file exists but is unreadable. */
  info: JobInfo | null;
  /** Why the file could not be read as JSON, or null. */
  problem: string | null;
}

const TRUNCATE_OVER = 100;

/**
 * Stores a long array input the Scout way: first 70, `"..."`, last 30, and a
 * `"TRUNCATED only 100 out of N shown"` marker. Shorter arrays are returned as is.
 *
 * @param value an input value
 * @returns the value to store
 */
export function truncateInputValue(value: unknown): unknown {
  if (!Array.isArray(value) || value.length <= TRUNCATE_OVER) return value;
  return [
    ...value.slice(0, 70),
    "...",
    ...value.slice(-30),
    `TRUNCATED only 100 out of ${value.length} shown`,
  ];
}

/**
 * Whether an info `inputs` value was truncated by the writer.
 *
 * @param value a stored input value
 * @returns true when it ends with the TRUNCATED marker
 */
export function isTruncatedInput(value: unknown): boolean {
  return Array.isArray(value) && typeof value[value.length - 1] === "string" &&
    /^TRUNCATED only \d+ out of \d+ shown$/.test(value[value.length - 1]);
}

function parseInfoText(text: string, file: string): InfoRead {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const kind = text.startsWith("\u0004\b") ? "a Ruby Marshal dump" : "not valid JSON";
    return { info: { status: "noinfo" }, problem: `Info file "${file}" is ${kind}` };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { info: { status: "noinfo" }, problem: `Info file "${file}" is not a JSON object` };
  }
  return { info: data as JobInfo, problem: null };
}

function unreadable(file: string, e: unknown): InfoRead {
  const code = (e as NodeJS.ErrnoException)?.code;
  const why = code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "EISDIR"
    ? "is a directory"
    : notRegularKind(e) !== null
    ? `${notRegularKind(e)}, not a regular file` // planted in a shared store: never read (R125-4)
    : (e as Error)?.message ?? String(e);
  return { info: { status: "noinfo" }, problem: `Cannot read info file "${file}": ${why}` };
}

/**
 * Reads the `.info` of a job, tolerantly. Missing file → `{info: null}`;
 * unreadable or non-JSON → `{info: {status: "noinfo"}, problem}`. A FIFO,
 * device or socket in its place is never read (`util/regular_file.ts`): unreadable.
 *
 * @param jobPath the job's result path
 * @returns the info and any problem
 */
export async function readJobInfo(jobPath: string): Promise<InfoRead> {
  const file = infoPath(jobPath);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: false }).decode(await readRegularFile(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === "ENOENT") return { info: null, problem: null };
    return unreadable(file, e);
  }
  return parseInfoText(text, file);
}

/**
 * Synchronous {@link readJobInfo}.
 *
 * @param jobPath the job's result path
 * @returns the info and any problem
 */
export function readJobInfoSync(jobPath: string): InfoRead {
  const file = infoPath(jobPath);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: false }).decode(readRegularFileSync(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === "ENOENT") return { info: null, problem: null };
    return unreadable(file, e);
  }
  return parseInfoText(text, file);
}

/**
 * The info of a job: null when it has no `.info`, `{status: "noinfo"}` when
 * the file cannot be read as a JSON object (see {@link readJobInfo} for the reason).
 *
 * @param jobPath the job's result path
 * @returns the info or null
 *
 * @example
 * ```ts ignore
 * import { jobInfo } from "./info.ts";
 * const info = await jobInfo("/home/u/.scout/var/jobs/Baking/whisk/Default");
 * info?.status; // "done"
 * ```
 */
export async function jobInfo(jobPath: string): Promise<JobInfo | null> {
  return (await readJobInfo(jobPath)).info;
}

/**
 * Applies Scout's merge rule: for each key of `patch`, an array stored value
 * gets the new value(s) appended, an object stored value is merged (shallow),
 * anything else is replaced; a `message` key is appended to `messages`.
 * Returns a new object; key order is kept (new keys go last).
 *
 * @param current stored info
 * @param patch new values
 * @returns the merged info
 *
 * @example
 * ```ts
 * import { mergeJobInfo } from "./info.ts";
 * mergeJobInfo({ status: "start", messages: ["a"] }, { status: "x", message: "b" });
 * // { status: "x", messages: ["a", "b"] }
 * ```
 */
export function mergeJobInfo(current: JobInfo, patch: Record<string, unknown>): JobInfo {
  const out: JobInfo = { ...current };
  for (const [rawKey, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const key = rawKey === "message" ? "messages" : rawKey;
    const stored = out[key];
    if (Array.isArray(stored)) {
      out[key] = stored.concat(Array.isArray(value) ? value : [value]);
    } else if (
      stored !== null && typeof stored === "object" && value !== null &&
      typeof value === "object" && !Array.isArray(value)
    ) {
      out[key] = { ...(stored as Record<string, unknown>), ...(value as Record<string, unknown>) };
    } else if (rawKey === "message" && stored === undefined) {
      out[key] = Array.isArray(value) ? [...value] : [value];
    } else {
      out[key] = value;
    }
  }
  return out;
}

const madeDirs = new Set<string>();

/**
 * Replaces the `.info` of a job: compact JSON written to a temp file in the
 * same directory and renamed over the info, so readers (Scout included) see
 * the old or the new object, never a partial one. Not fsynced: the info is
 * rewritten several times per run; the result file, written with
 * `writeFileAtomic`, is the durable record (done ⇔ result exists).
 *
 * @param jobPath the job's result path
 * @param info the whole info object
 */
export function writeJobInfo(jobPath: string, info: JobInfo): Promise<void> {
  const file = infoPath(jobPath);
  const dir = dirname(file);
  let tmp: string;
  try {
    tmp = tempPathFor(file);
  } catch (e) {
    return Promise.reject(e); // no room for a temp name within PATH_MAX: a rejection, as any failure
  }
  try {
    if (!madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      madeDirs.add(dir);
    }
    writeFileSync(tmp, jsonText(info));
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    if ((e as NodeJS.ErrnoException).code === "ENOENT" && madeDirs.delete(dir)) {
      return writeJobInfo(jobPath, info); // the directory was removed (clean); create it again
    }
    return Promise.reject(
      new ScoutError("io", cannotText("write", file, e), { file, cause: e }),
    );
  }
  return Promise.resolve();
}

/**
 * Synchronous {@link writeJobInfo} (signal handlers).
 *
 * @param jobPath the job's result path
 * @param info the whole info object
 */
export function writeJobInfoSync(jobPath: string, info: JobInfo): void {
  writeFileAtomicSync(infoPath(jobPath), jsonText(info));
}

function strictInfo(read: InfoRead, jobPath: string): JobInfo {
  if (read.problem !== null) {
    throw new ScoutError("job_info_unreadable", `${read.problem}; refusing to overwrite it`, {
      file: infoPath(jobPath),
    });
  }
  return read.info ?? {};
}

/**
 * Reads, merges (see {@link mergeJobInfo}) and atomically rewrites the `.info`
 * of a job. An info file that exists but is not JSON is never overwritten by
 * a merge: that throws `job_info_unreadable`.
 *
 * @param jobPath the job's result path
 * @param patch new values
 * @returns the info as written
 */
export async function updateJobInfo(
  jobPath: string,
  patch: Record<string, unknown>,
): Promise<JobInfo> {
  const merged = mergeJobInfo(strictInfo(await readJobInfo(jobPath), jobPath), patch);
  await writeJobInfo(jobPath, merged);
  return merged;
}

/**
 * Synchronous {@link updateJobInfo}.
 *
 * @param jobPath the job's result path
 * @param patch new values
 * @returns the info as written
 */
export function updateJobInfoSync(jobPath: string, patch: Record<string, unknown>): JobInfo {
  const merged = mergeJobInfo(strictInfo(readJobInfoSync(jobPath), jobPath), patch);
  writeJobInfoSync(jobPath, merged);
  return merged;
}

/**
 * Dependency paths of an info, accepting Scout's `[workflow, task, path]`
 * entries (last element) next to plain strings; other entries are skipped.
 *
 * @param info an info object
 * @returns the dependency paths as stored
 */
export function infoDependencies(info: JobInfo | null): string[] {
  const deps = info?.dependencies;
  if (!Array.isArray(deps)) return [];
  const out: string[] = [];
  for (const d of deps) {
    if (typeof d === "string") out.push(d);
    else if (Array.isArray(d) && typeof d[d.length - 1] === "string") {
      out.push(d[d.length - 1] as string);
    }
  }
  return out;
}

/**
 * One warning per dependency entry of an info that {@link infoDependencies}
 * skips — neither a path string nor an array ending in one — worded as
 * `llm prov` words a dependency that resolves to no job; or one for
 * `dependencies` that is not a list (R88-9: `workflow info` dropped them
 * silently).
 *
 * @param info an info object
 * @param jobPath the job's path (named in the warnings)
 * @returns the warnings, in entry order
 */
export function infoDependencyProblems(info: JobInfo | null, jobPath: string): string[] {
  const deps: unknown = info?.dependencies;
  const shown = (v: unknown) => JSON.stringify(v) ?? String(v);
  if (deps === undefined || deps === null) return [];
  if (!Array.isArray(deps)) {
    return [`Dependencies of job "${jobPath}" are ${shown(deps)}, not a list; none listed`];
  }
  return deps.filter((d) =>
    typeof d !== "string" && !(Array.isArray(d) && typeof d[d.length - 1] === "string")
  ).map((d) =>
    `Dependency ${shown(d)} of job "${jobPath}" does not resolve to a job (not a path); not listed`
  );
}

/**
 * The error class and message of a failed job, read from the last
 * `"Class: message"` entry of `messages` (the port never decodes Marshal).
 *
 * @param info an info object
 * @returns `{className, message}` or null when no such entry exists
 */
export function infoError(info: JobInfo | null): { className: string; message: string } | null {
  const msgs = info?.messages;
  if (!Array.isArray(msgs)) return null;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (typeof m !== "string") continue;
    const match = /^([A-Z][A-Za-z0-9_]*(?:::[A-Z][A-Za-z0-9_]*)*): ([\s\S]*)$/.exec(m);
    if (match) return { className: match[1]!, message: match[2]! };
  }
  return null;
}
