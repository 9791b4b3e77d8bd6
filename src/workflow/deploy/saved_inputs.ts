/**
 * The files a deployed job's inputs name, saved when it is submitted
 * (`--deploy local|slurm`, R109-1). A worker — a batch job may start hours
 * later — builds the job again from the same command line: reading the files
 * as they are then, an edited or removed one made another job, and the one
 * submitted was never run. Scout saves a batch job's inputs into its batch
 * directory and the batch command loads them (`--load_inputs`); here the
 * command keeps the inputs as typed, and a directory keeps the bytes of each
 * file whose content is an input's value (a `text` input given a file name)
 * or that the task reads (a `file` input), once the job has something to
 * run. The submitting process and its workers build the job from each file
 * as named while it is the one kept, else from what is kept
 * (`saved_inputs_use.ts`): its name, digested from that content, and its
 * result are those of the job submitted, and in the usual case — no file
 * changed — its inputs, `.info` and result name the files a serial run
 * names. A job whose file changes while it runs fails, its result not
 * stored (`saved_inputs_check.ts`, R122-1).
 *
 * How the bytes are kept (`saved_inputs_save.ts`):
 * - a file the task reads — often a data file of tens of GB — is hard-linked:
 *   no byte is copied, and a file replaced by a rename (as editors and most
 *   tools write) or removed keeps its submitted bytes in the link. An edit in
 *   place changes the link's bytes too: a worker sees it and stops (below).
 * - where a link cannot be made (another file system, a file system without
 *   hard links, a file one may not link), such a file is copied up to
 *   {@link COPY_LIMIT}; a larger one is only recorded (size, modification
 *   time), as a path input is, and the submission warns about it.
 * - a file whose content is the value is copied: the job reads it whole into
 *   its inputs anyway, and a copy lets it be edited in place after submission.
 *
 * Files passed by name (`path`, `noload` inputs…) are not saved; those named
 * by an absolute path, whose content the job's name digests, are recorded.
 *
 * Before each job a worker compares every saved file (the link, the copy, or
 * a file only recorded) with what was recorded at submission and stops with
 * one line — `the input file "F" (--x) changed since submission` — rather
 * than compute another job ({@link changedSavedFile}). It compares size and
 * modification time (and a link's inode), not an MD5: a `stat` per file, where
 * hashing tens of GB in every worker would take minutes; an edit that keeps
 * both (within the millisecond the runtime reports) goes unseen, as it does
 * for `make` and `rsync`.
 *
 * The directory: `inputs.json` (the list), `files/<n>/<basename>` (the links
 * and copies, a `<basename>.md5` beside one that had it: Scout digests a
 * file by it); its name is the MD5 of the list, which names each file's
 * bytes without reading the huge ones: a link by its device, inode, size and
 * modification time, a copy by the MD5 of its bytes. A second submission of
 * the same files finds its directory and copies nothing; only the files it
 * would copy are read (hashed), never the linked ones.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { ScoutError } from "../../errors.ts";
import { fileStats, isFile, readFailure } from "../../util/fs.ts";
import { loadsFileValue } from "../coerce.ts";
import { isStepFilePath } from "../digest.ts";
import type { InputDef } from "../job_types.ts";
import { arrayElementType } from "../types.ts";

/** The list's file in a saved directory. */
export const RECORD = "inputs.json";

/**
 * The largest file copied when it cannot be hard-linked: 256 MiB — a few
 * seconds to read and write on a cluster's scratch file system, and little
 * of a quota. A larger file the task reads is recorded instead (see the
 * module), and the submission warns.
 */
export const COPY_LIMIT = 256 * 1024 * 1024;

/** A file an input's value (or an item of a list input) names on the command line. */
export interface InputFile {
  /** The input. */
  input: string;
  /** The value as typed. */
  value: string;
  /** The file (absolute). */
  file: string;
  /** Whether its bytes are kept: its content is the input's value, or the task reads it. */
  keep: boolean;
  /** Whether they are kept by a hard link (the task reads it) rather than a copy. */
  link: boolean;
}

/** How a file's bytes are kept: a hard link, a copy, or neither (recorded). */
export type Kept = "link" | "copy" | "none";

/** A file as saved: linked, copied, or recorded by its size and modification time. */
export interface SavedFile {
  /** The input. */
  input: string;
  /** The value as typed. */
  value: string;
  /** The file (absolute). */
  file: string;
  /** A file whose bytes the job needs: how they are kept; absent for a file passed by name. */
  kept?: Kept;
  /** The link or copy, relative to the saved directory. */
  saved?: string;
  /** A copy: MD5 of its bytes. */
  md5?: string;
  /** The content of `<file>.md5`, saved beside the link or copy. */
  sideMd5?: string;
  /** A link: the file's device. */
  dev?: number;
  /** A link: the file's inode. */
  ino?: number;
  /** Its size at submission. */
  size?: number;
  /** Its modification time at submission (ms); not a copy's. */
  mtimeMs?: number;
}

/** What a saved directory holds (`inputs.json`). */
export interface SavedInputs {
  /** Format version: 2 since files are linked (1 copied them all). */
  version: 2;
  /** The files. */
  files: SavedFile[];
}

/** A saved directory and its list. */
export interface SavedDir {
  /** The directory. */
  dir: string;
  /** Its list. */
  record: SavedInputs;
}

/** The file a string names, if any, and whether a copy is kept (see the module). */
function inputFile(
  def: InputDef,
  value: string,
  type: string | null,
  cwd: string,
): InputFile | null {
  if (value === "" || value.includes("\n")) return null; // never taken for a file name
  const file = resolve(cwd, value);
  if (!isFile(file)) return null;
  const step = isStepFilePath(file); // digested by its place in the store
  const loads = type !== null && loadsFileValue(def, type);
  const link = type === "file" && !step;
  const keep = loads || link;
  if (keep) return { input: def.name, value, file, keep, link: !loads };
  return isAbsolute(value) && !step ? { input: def.name, value, file, keep, link: false } : null;
}

/**
 * The files the command line's input values name (see the module): those
 * whose bytes are kept, and those whose content names the job although the
 * task gets their name. A `jobname` input, and overrides (`--Wf#task`), stay as
 * typed.
 *
 * @param provided the parsed input values (strings, lists of strings, booleans)
 * @param defs the task's recursive inputs
 * @param cwd directory relative names resolve against
 * @returns the files, in the order given
 */
export function inputFiles(
  provided: Readonly<Record<string, unknown>>,
  defs: readonly InputDef[],
  cwd: string,
): InputFile[] {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const out: InputFile[] = [];
  const seen = new Set<string>();
  for (const [name, v] of Object.entries(provided)) {
    const def = byName.get(name);
    if (def === undefined || def.jobname === true) continue;
    const el = arrayElementType(def.type);
    const items: [string, string | null][] = typeof v === "string"
      ? [[v, def.type]]
      : Array.isArray(v)
      ? v.filter((x) => typeof x === "string").map((x) => [x, el])
      : [];
    for (const [value, type] of items) {
      const f = inputFile(def, value, type, cwd);
      const key = `${name}\0${value}`;
      if (f === null || seen.has(key)) continue;
      seen.add(key);
      out.push(f);
    }
  }
  return out;
}

/** The error of a saved directory that cannot be used. */
function unusable(dir: string, why: string): ScoutError {
  return new ScoutError(
    "deploy_failed",
    `The input files saved when the job was submitted cannot be read: ${why} ` +
      `(was ${dir} removed since?)`,
    { file: dir },
  );
}

const KEPT: ReadonlySet<unknown> = new Set(["link", "copy", "none"]);

/** Whether a parsed list is a {@link SavedInputs}. */
function isSaved(v: unknown): v is SavedInputs {
  const r = v as SavedInputs;
  return typeof r === "object" && r !== null && r.version === 2 && Array.isArray(r.files) &&
    r.files.every((f) =>
      typeof f?.input === "string" && typeof f.value === "string" && typeof f.file === "string" &&
      (f.kept === undefined || KEPT.has(f.kept)) &&
      (f.saved === undefined || typeof f.saved === "string")
    );
}

/**
 * Reads a saved directory's list; every link and copy must be there.
 *
 * @param dir the saved directory
 * @returns the list
 * @throws ScoutError `deploy_failed` saying what is missing or unreadable
 */
export function loadSavedInputs(dir: string): SavedInputs {
  const file = join(dir, RECORD);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw unusable(dir, `"${file}": ${readFailure(e)}`);
  }
  if (!isSaved(parsed)) throw unusable(dir, `"${file}" is not a list of saved inputs`);
  for (const f of parsed.files) {
    if (f.saved !== undefined && !isFile(join(dir, f.saved))) {
      const what = f.kept === "link" ? "a hard link to" : "a copy of";
      throw unusable(dir, `"${join(dir, f.saved)}" (${what} "${f.file}") is gone`);
    }
  }
  return parsed;
}

/** A file's identity as the saved list records it: device, inode, size, modification time. */
export interface FileIdentity {
  dev?: number;
  ino?: number;
  size?: number;
  mtimeMs?: number;
}

/**
 * Whether a file's stats are still those recorded: one rule for a hard link
 * saved at submission and a file given to a job as named, before and after
 * its body (an edit in place, a replacement by rename and a removal each
 * change one of them).
 *
 * @param st the file's stats now, or null when it is gone
 * @param was its identity as recorded
 * @returns true when every recorded field is the same
 */
export function sameIdentity(st: FileIdentity | null, was: FileIdentity): boolean {
  return st !== null && st.dev === was.dev && st.ino === was.ino && st.size === was.size &&
    st.mtimeMs === was.mtimeMs;
}

/** Why one file is not as recorded at submission (see the module), or null. */
function changedFile(f: SavedFile, dir: string): string | null {
  const what = `the input file "${f.file}" (--${f.input})`;
  if (f.saved === undefined) { // recorded: the file itself
    const st = fileStats(f.file);
    if (st === null) return `${what} is gone since submission`;
    return st.size !== f.size || st.mtimeMs !== f.mtimeMs
      ? `${what} changed since submission`
      : null;
  }
  const st = fileStats(join(dir, f.saved));
  if (st === null) {
    return `${what}: its ${f.kept} saved at submission is gone (was ${dir} removed since?)`;
  }
  if (f.kept === "copy") {
    return st.size !== f.size ? `${what}: its copy saved at submission changed` : null;
  }
  return sameIdentity(st, f)
    ? null
    : `${what} changed since submission (edited in place: the hard link saved then shares its bytes)`;
}

/**
 * Whether an entry's link or copy still holds the bytes saved at
 * submission, by the rule a worker checks before each job (a link's
 * identity, a copy's size): a link edited in place through its file does
 * not, and is no saved file to offer (R118-2).
 *
 * @param f the entry
 * @param dir the saved directory
 * @returns false too for an entry with no link or copy
 */
export function savedIntact(f: SavedFile, dir: string): boolean {
  return f.saved !== undefined && changedFile(f, dir) === null;
}

/**
 * Why the job built from these inputs may not be the one submitted: the
 * first file whose bytes it needs (linked, copied or only recorded) that is
 * no longer as it was at submission — `the input file "F" (--x) changed
 * since submission (edited in place…)` — or null. A worker asks before each
 * job, whatever the job reads: one whose submitted inputs are gone stops the
 * graph rather than let its jobs run on what cannot give the result asked for.
 *
 * @param saved the list
 * @param dir its directory
 * @returns the reason, or null
 */
export function changedSavedFile(saved: SavedInputs, dir: string): string | null {
  for (const f of saved.files) {
    if (f.kept === undefined) continue;
    const why = changedFile(f, dir);
    if (why !== null) return why;
  }
  return null;
}

/**
 * Why the job built from these inputs is not the one submitted: a file
 * whose bytes it needs changed ({@link changedSavedFile}), or a file passed
 * by name did: `the input file "F" (--x) changed since submission` (or `is
 * gone`); null when none did.
 *
 * @param saved the list
 * @param dir its directory
 * @returns the reason, or null
 */
export function changedInputFile(saved: SavedInputs, dir: string): string | null {
  for (const f of saved.files) {
    const why = changedFile(f, dir);
    if (why !== null) return why;
  }
  return null;
}
