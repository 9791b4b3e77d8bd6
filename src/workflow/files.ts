/**
 * The `.files/` directory of a job (`workflow.md` §3.3): created lazily by
 * whatever writes into it. Conventions: `log/**\/*.chat` (agent conversations,
 * read by provenance), `progress`, task-chosen artifacts (`artifacts/<name>`).
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { ScoutError } from "../errors.ts";
import { writeFileAtomic } from "../util/fs.ts";
import { filesDir } from "./store.ts";

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
      const p = join(dir, ent.name);
      if (ent.isDirectory()) walk(p);
      else out.push(relative(base, p).split(sep).join("/"));
    }
  };
  walk(under === "" ? base : jobFile(jobPath, under));
  return out.sort();
}

/**
 * The agent conversation logs of a job: every `*.chat` under `.files/log/`,
 * as sorted absolute paths.
 *
 * @param jobPath the job's result path
 * @returns absolute paths of the log chats
 */
export function jobLogChats(jobPath: string): Promise<string[]> {
  return Promise.resolve().then(() => jobLogChatsSync(jobPath));
}

/**
 * {@link jobLogChats}, synchronously.
 *
 * @param jobPath the job's result path
 * @returns absolute paths of the log chats
 */
export function jobLogChatsSync(jobPath: string): string[] {
  const rels = listJobFilesSync(jobPath, "log");
  return rels.filter((r) => r.endsWith(".chat")).map((r) => join(filesDir(jobPath), r));
}
