/**
 * Which file a deployed job is given for a value whose file was saved at
 * submission (`saved_inputs.ts`, R114-2): the file named on the command line
 * while it is still the one saved — a link's device, inode, size and
 * modification time; a copy's size and MD5; the same `<file>.md5` beside it —
 * so the task, its `.info` (`inputs`) and its result name the file a serial
 * run names, never a saved one that goes with its directory (R122-1); the
 * link or copy only once that file was replaced, removed or changed before
 * the job is built, so the job still computes the bytes submitted (it then
 * names the saved file: what it read).
 *
 * A task reads the file it is given when it likes, so a file named that is
 * replaced, removed or edited while the job runs would reach it: the job's
 * body is followed by the check that each file it was given as named is
 * still as it was when the job was built, and a job whose file changed
 * stores no result but fails (`saved_inputs_check.ts`, R122-1 [TS-FIX]).
 *
 * A worker builds its job once and may run jobs of it for hours: before each
 * it asks whether a file it was given as named changed since
 * ({@link originalsChanged}, a `stat` each) and, if one did, builds the job
 * again from the saved files. A submission asks at its end which saved files
 * of its run a job's `.info` names ({@link savedInUse}): those it keeps.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileStats, isFile } from "../../util/fs.ts";
import { ownRecord } from "../../util/own_record.ts";
import { isTruncatedInput, readJobInfoSync } from "../info.ts";
import {
  type InputFile,
  sameIdentity,
  type SavedFile,
  type SavedInputs,
  savedIntact,
} from "./saved_inputs.ts";
import { hashFile } from "./saved_inputs_save.ts";

/** A file given to a job as named on the command line, as it was then. */
export interface OriginalFile {
  /** The input that names it (on the command line). */
  input: string;
  /** The file (absolute). */
  file: string;
  /** Its device. */
  dev: number;
  /** Its inode. */
  ino: number;
  /** Its size. */
  size: number;
  /** Its modification time (ms). */
  mtimeMs: number;
}

/** The content of `<file>.md5`, or undefined without one. */
function sideMd5(file: string): string | undefined {
  try {
    return isFile(file + ".md5") ? readFileSync(file + ".md5", "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file a saved entry was saved from, when it still is the one saved
 * (see the module); null when it changed, is gone, or the entry has no
 * link or copy (a file only recorded is given as named anyway).
 *
 * @param f the entry
 * @returns the file as it is now, or null
 */
export function unchangedOriginal(f: SavedFile): OriginalFile | null {
  if (f.saved === undefined) return null;
  const st = fileStats(f.file);
  if (st === null || st.size !== f.size || sideMd5(f.file) !== f.sideMd5) return null;
  const { dev, ino, size, mtimeMs } = st;
  const same = f.kept === "link" ? sameIdentity(st, f) : md5Of(f.file) === f.md5; // a copy: at most COPY_LIMIT, or a value read whole anyway
  return same ? { input: f.input, file: f.file, dev, ino, size, mtimeMs } : null;
}

/** The MD5 of a file's bytes, or null when it cannot be read (then the copy is given). */
function md5Of(file: string): string | null {
  try {
    return hashFile(file);
  } catch {
    return null;
  }
}

/** What a job is built from: the values, and the files given as named. */
export interface SavedValues {
  /** The input values, a saved file's replaced by its link or copy once the file changed. */
  provided: Record<string, unknown>;
  /** Each link or copy given → the value as typed (`createJob`'s `typedAs`: `provided_inputs`). */
  typedAs: Map<string, string>;
  /**
   * The files given as named, as they were then (what {@link originalsChanged}
   * checks before a job, and `checkingGivenFiles` after its body).
   */
  originals: OriginalFile[];
}

/**
 * The input values with each saved file's value kept as typed while the file
 * it names is still the one saved, else replaced by its link or copy (a
 * list's items one by one); each replaced value's link or copy → the value as
 * typed (the job records that, `createJob`'s `typedAs`), and the files given
 * as named (what {@link originalsChanged} checks). A file only recorded stays
 * as typed.
 *
 * @param provided the parsed input values
 * @param saved the list
 * @param dir its directory
 * @returns the values to build the job from, the saved files as typed, the files given as named
 */
export function withSavedFiles(
  provided: Readonly<Record<string, unknown>>,
  saved: SavedInputs,
  dir: string,
): SavedValues {
  const copies = new Map<string, string>();
  const originals: OriginalFile[] = [];
  for (const f of saved.files) {
    if (f.saved === undefined) continue;
    const same = unchangedOriginal(f);
    if (same !== null) originals.push(same);
    else copies.set(`${f.input}\0${f.value}`, join(dir, f.saved));
  }
  const typedAs = new Map<string, string>();
  const swap = (name: string, v: unknown): unknown => {
    if (typeof v !== "string") return v;
    const copy = copies.get(`${name}\0${v}`);
    if (copy === undefined) return v;
    typedAs.set(copy, v);
    return copy;
  };
  const out = ownRecord(); // an input named `__proto__` is a value, under Bun too
  for (const [name, v] of Object.entries(provided)) {
    out[name] = Array.isArray(v) ? v.map((x) => swap(name, x)) : swap(name, v);
  }
  return { provided: out, typedAs, originals };
}

/**
 * Whether a file given to a job as named is no longer as it was then
 * (replaced, removed, edited): a job built from it would read other bytes
 * than those its name was digested from.
 *
 * @param originals the files given as named ({@link withSavedFiles})
 * @returns true when one changed
 */
export function originalsChanged(originals: readonly OriginalFile[]): boolean {
  return originals.some((o) => !sameIdentity(fileStats(o.file), o));
}

/**
 * The saved files a job of the run names: those of files the task reads by
 * name (a `file` input, linked or copied) that are no longer the ones saved,
 * whose link or copy still holds the bytes submitted ({@link savedIntact}),
 * and that the `.info` of a job of the run names among its inputs — a job
 * built since the file changed was given the saved file and records it. A
 * link edited in place holds other bytes: it is no saved file, whatever names
 * it; a file replaced after the last job was built is named by none (R118-2).
 * A list the `.info` shows truncated may name any file of its input. A
 * value's file never is named: its content, not its name, reaches the job.
 *
 * @param record the list
 * @param files the files it was saved from (`inputFiles`, in its order)
 * @param dir its directory
 * @param jobs the paths of the run's jobs (its graph; none when no job was built)
 * @returns the entries
 */
export function savedInUse(
  record: SavedInputs,
  files: readonly InputFile[],
  dir: string,
  jobs: readonly string[],
): SavedFile[] {
  const kept = record.files.filter((f, i) =>
    files[i]?.link === true && unchangedOriginal(f) === null && savedIntact(f, dir)
  );
  if (kept.length === 0) return [];
  const named = infoInputs(jobs);
  return kept.filter((f) => named.values.has(join(dir, f.saved!)) || named.truncated.has(f.input));
}

/**
 * The strings the `.info` files of these jobs record as input values (a
 * list's items), and the inputs whose list one shows truncated.
 */
function infoInputs(jobs: readonly string[]): { values: Set<string>; truncated: Set<string> } {
  const values = new Set<string>();
  const truncated = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === "string") values.add(v);
    else if (Array.isArray(v)) v.forEach(add);
  };
  for (const path of jobs) {
    const { info } = readJobInfoSync(path);
    if (info === null || !Array.isArray(info.inputs)) continue;
    info.inputs.forEach((v, i) => {
      const name = Array.isArray(info.input_names) ? info.input_names[i] : undefined;
      if (isTruncatedInput(v) && typeof name === "string") truncated.add(name);
      add(v);
    });
  }
  return { values, truncated };
}
