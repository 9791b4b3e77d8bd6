/**
 * A failure to write under `SCOUT_HOME` (default `~/.scout`) or the
 * temporary directory says which variable to set (R166-4): `HOME=/` with
 * `SCOUT_HOME` unset gave `Cannot create directory "/.scout": permission
 * denied`, and `TMPDIR=/nonexistent` `Cannot create a temporary directory in
 * "/nonexistent/scout-dot-XXXXXX"`, neither naming the variable behind the
 * path. The CLI's error line adds the hint, for every command.
 *
 * @module
 */
import { scoutHome } from "../config/home.ts";
import { isScoutError } from "../errors.ts";
import { refusedByFileSystem } from "../util/fs_refused.ts";
import { tempBase } from "../util/process_temp_dir.ts";

/** Refusals a writable directory elsewhere cures (not a full disk: ENOSPC, EDQUOT). */
const CURED = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "ENOENT", "EEXIST"]);

/** The OS error behind `e` when a writable directory elsewhere would have done. */
function refusal(e: unknown): NodeJS.ErrnoException | null {
  const errno = refusedByFileSystem(e) ?? madeNoTemp(e);
  return errno !== null && CURED.has(errno.code ?? "") ? errno : null;
}

/** A `mkdtemp` in a directory that is not there (`TMPDIR=/nonexistent`). */
function madeNoTemp(e: unknown): NodeJS.ErrnoException | null {
  const errno = ((e as { cause?: unknown })?.cause ?? e) as NodeJS.ErrnoException | undefined;
  return errno?.syscall === "mkdtemp" ? errno : null;
}

/** The refused path: the OS error's, else the one the wrapping error names. */
function pathOf(e: unknown, errno: NodeJS.ErrnoException): string | null {
  if (typeof errno.path === "string" && errno.path !== "") return errno.path;
  return isScoutError(e) && typeof e.file === "string" ? e.file : null;
}

/** `SCOUT_HOME`, or null when there is no home to default it to. */
function homeOrNull(env: Record<string, string | undefined>): string | null {
  try {
    return scoutHome(env);
  } catch (e) {
    if (isScoutError(e, "no_home")) return null;
    throw e;
  }
}

function under(path: string, dir: string): boolean {
  const d = dir.replace(/\/+$/, "");
  return path === d || path.startsWith(`${d}/`);
}

/**
 * The hint added to a failure's line when the file system refused a path
 * under `SCOUT_HOME` or the temporary directory.
 *
 * @param e what the command failed with
 * @param env the command's environment
 * @returns the hint, starting with a separator, or ""
 * @example
 * ```ts
 * import { writableHint } from "./writable_hint.ts";
 * const e = Object.assign(new Error("EACCES"), {
 *   code: "EACCES",
 *   syscall: "mkdir",
 *   path: "/.scout/etc",
 * });
 * writableHint(e, { HOME: "/" }); // " — set SCOUT_HOME to a writable directory"
 * ```
 */
export function writableHint(e: unknown, env: Record<string, string | undefined>): string {
  // a message that already says what to set (the persist lock's, R166-2) says it once
  if (/\bset (SCOUT_HOME|TMPDIR)\b/.test((e as Error | null)?.message ?? "")) return "";
  const errno = refusal(e);
  const path = errno === null ? null : pathOf(e, errno);
  if (errno === null || path === null) return "";
  const home = homeOrNull(env);
  if (home !== null && under(path, home)) return " — set SCOUT_HOME to a writable directory";
  // only scout-ai's own temporary directories: a user's file under /tmp is no TMPDIR matter
  if (errno.syscall === "mkdtemp" && under(path, tempBase(env))) {
    return " — set TMPDIR to a writable directory";
  }
  return "";
}
