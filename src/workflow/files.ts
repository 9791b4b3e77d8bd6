/**
 * The `.files/` directory of a job (`workflow.md` §3.3): created lazily by
 * whatever writes into it. Conventions: `log/**\/*.chat` (agent conversations,
 * read by provenance), `progress`, task-chosen artifacts (`artifacts/<name>`).
 *
 * @module
 */
import {
  type Dirent,
  existsSync,
  lstatSync,
  readdirSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { isScoutError, ScoutError } from "../errors.ts";
import { compareBytes } from "../util/byte_order.ts";
import { presentAs, writeFileAtomic } from "../util/fs.ts";
import { filesDir } from "./store.ts";
import { ATTEMPTS_DIR } from "./attempts.ts";

/**
 * The absolute path of `rel` inside a job's `.files/` directory. Refuses
 * absolute paths and paths escaping the directory.
 *
 * @param jobPath the job's result path
 * @param rel relative path, e.g. `log/agent.chat`
 * @returns `<jobPath>.files/<rel>`
 *
 * @example
 * ```ts
 * import { jobFile } from "./files.ts";
 * jobFile("/j/WF/t/Default", "log/agent.chat"); // "/j/WF/t/Default.files/log/agent.chat"
 * ```
 */
export function jobFile(jobPath: string, rel: string): string {
  const clean = normalize(rel);
  if (rel === "" || isAbsolute(rel) || clean === ".." || clean.startsWith(".." + sep)) {
    throw new ScoutError(
      "invalid_input",
      `Job file must be a relative path inside the job: "${rel}"`,
    );
  }
  return join(filesDir(jobPath), clean);
}

/**
 * Writes a file inside the job's `.files/` directory atomically (parents created).
 *
 * @param jobPath the job's result path
 * @param rel relative path
 * @param data content
 * @returns the absolute path written
 */
export async function writeJobFile(
  jobPath: string,
  rel: string,
  data: string | Uint8Array,
): Promise<string> {
  const path = jobFile(jobPath, rel);
  await writeFileAtomic(path, data);
  return path;
}

/**
 * Lists the files (not directories) under a job's `.files/`, recursively,
 * as sorted relative paths with `/` separators. A missing directory gives [].
 * A job's files are its last run's: the earlier attempts kept in
 * `.files/.attempts/` (`attempts.ts`) are left out, unless `under` names
 * that directory (R109-3).
 *
 * @param jobPath the job's result path
 * @param under optional sub-directory (e.g. `log`)
 * @returns relative paths (relative to `.files/`)
 */
export function listJobFiles(jobPath: string, under = ""): Promise<string[]> {
  return Promise.resolve().then(() => listJobFilesSync(jobPath, under));
}

/**
 * {@link listJobFiles}, synchronously (a job's files are few: the task
 * route reads a failed job's logs while it chooses the job to run, with
 * nothing awaited).
 *
 * @param jobPath the job's result path
 * @param under optional sub-directory (e.g. `log`)
 * @returns relative paths (relative to `.files/`)
 */
export function listJobFilesSync(jobPath: string, under = ""): string[] {
  const base = filesDir(jobPath);
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return;
      throw new ScoutError("io", `Cannot list "${dir}": ${(e as Error).message}`, {
        file: dir,
        cause: e,
      });
    }
    for (const ent of entries) {
      if (dir === base && ent.name === ATTEMPTS_DIR) continue; // earlier runs, not this one's
      const p = join(dir, ent.name);
      if (ent.isDirectory()) walk(p);
      else out.push(relative(base, p).split(sep).join("/"));
    }
  };
  walk(under === "" ? base : jobFile(jobPath, under));
  return out.sort();
}

/**
 * The agent conversation logs of a job: every `*.chat` under `.files/log/`
 * ({@link jobLogChatFiles}' rules), as absolute paths in UTF-8 byte order.
 *
 * @param jobPath the job's result path
 * @returns absolute paths of the log chats
 * @throws ScoutError `io` when a directory under `log/` cannot be listed
 */
export function jobLogChats(jobPath: string): Promise<string[]> {
  return Promise.resolve().then(() => jobLogChatsSync(jobPath));
}

/**
 * {@link jobLogChats}, synchronously.
 *
 * @param jobPath the job's result path
 * @returns absolute paths of the log chats
 * @throws ScoutError `io` when a directory under `log/` cannot be listed
 */
export function jobLogChatsSync(jobPath: string): string[] {
  const { files, errors } = jobLogChatFiles(jobPath);
  const e = errors[0];
  if (e !== undefined) {
    throw new ScoutError("io", `Cannot list "${e.dir}": ${e.message}`, { file: e.dir });
  }
  return files;
}

/** Chat files under a job's log directory, and the directories that could not be listed. */
export interface JobLogFiles {
  /** Real paths, sorted by UTF-8 bytes. */
  files: string[];
  /**
   * Directories that exist but could not be listed, with the reason; also
   * `P.files/log` when `P.files` or `log` is a file, a link to nothing or a
   * link loop (R142-2); and a directory holding a name that is not UTF-8,
   * which cannot be opened by the name it is listed with (R150-3).
   */
  errors: { dir: string; message: string }[];
  /** Symlinks to files under `/proc`, `/sys` or `/dev`: not chats, not kept (R99-1). */
  skipped: { link: string; target: string }[];
}

/** System trees whose files are never a job's log chats. */
const SYSTEM = ["/proc/", "/sys/", "/dev/"];

const realpath: (p: string) => string = realpathSync.native ?? realpathSync;

/**
 * The chat files under `P.files/log/`, recursively (`provenance.md` §3):
 * names starting with `.` are skipped, symlinked directories are not
 * descended, regular files ending in `.chat` are kept and so are symlinks to
 * them (as their target's real path; a dangling one is dropped) — a
 * directory named `x.chat` is not a chat. Paths are real (the log directory
 * resolved) and sorted by UTF-8 bytes. A missing log directory is not an
 * error; one that cannot be listed is returned, not thrown, and so is a
 * `.files` or `log` that is a file, a link to nothing or a link loop. A symlink to a
 * file under `/proc`, `/sys` or `/dev` is no chat: it is returned as
 * skipped, never read ([TS-FIX] R99-1: `/proc/self/environ` read as a chat
 * would put the environment's text into labels and warnings).
 *
 * @param jobPath the job's result path `P`
 * @returns the files and any unlistable directories
 */
export function jobLogChatFiles(jobPath: string): JobLogFiles {
  const out: JobLogFiles = { files: [], errors: [], skipped: [] };
  const logDir = join(filesDir(jobPath), "log");
  if (!existsSync(logDir)) { // (checked first: a thrown ENOENT is costly per job)
    const why = notThere(jobPath);
    if (why !== null) out.errors.push({ dir: logDir, message: why });
    return out;
  }
  let root: string;
  try {
    root = realpath(logDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      out.errors.push({ dir: logDir, message: (e as Error).message });
    }
    return out;
  }
  walkLog(root, out);
  out.files.sort(compareBytes);
  return out;
}

/**
 * Why `P.files/log` is not there when that is no mere absence, else null
 * (R142-2): a `.files` (or `log`) that is a file, a link to nothing or a
 * link loop hides the job's logs — malformed evidence, not a job without
 * files. A truly missing `.files` or `log` (ENOENT, no link) is absence.
 */
function notThere(jobPath: string): string | null {
  for (const path of [filesDir(jobPath), join(filesDir(jobPath), "log")]) {
    try {
      // (existsSync and lstat first: the common miss, a job without files, stays cheap)
      if (!existsSync(path) && lstatSync(path, { throwIfNoEntry: false }) === undefined) {
        return null;
      }
      if (presentAs(path, "directory") === null) return null;
    } catch (e) {
      return isScoutError(e) ? e.message : (e as Error).message;
    }
  }
  return null;
}

function walkLog(dir: string, out: JobLogFiles): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    out.errors.push({ dir, message: (e as Error).message });
    return;
  }
  for (const dirent of entries) {
    const name = dirent.name;
    if (name.startsWith(".")) continue;
    const full = join(dir, name);
    // a name that is not UTF-8 is listed with U+FFFD in its place, and no file has that name
    if (name.includes("\ufffd") && lstatOrNull(full) === null) {
      out.errors.push({ dir, message: undecodable(name) });
      continue;
    }
    // Some file systems do not report entry types: ask lstat then.
    const ent = dirent.isFile() || dirent.isDirectory() || dirent.isSymbolicLink()
      ? dirent
      : lstatOrNull(full);
    if (ent === null) continue;
    if (ent.isDirectory()) walkLog(full, out);
    else if (!name.endsWith(".chat")) continue;
    else if (ent.isFile()) out.files.push(full);
    else if (ent.isSymbolicLink()) {
      try {
        if (!statSync(full).isFile()) continue;
        const target = realpath(full);
        if (SYSTEM.some((s) => target.startsWith(s))) out.skipped.push({ link: full, target });
        else out.files.push(target);
      } catch { /* a dangling symlink is no chat */ }
    }
  }
}

/** Why an entry listed with U+FFFD in its name cannot be read (R150-3). */
function undecodable(name: string): string {
  return `the name of "${name}" is not valid UTF-8, so the file cannot be opened by it (rename it)`;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
