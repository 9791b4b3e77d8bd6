/**
 * Which file a deployed job is given for a value whose file was saved at
 * submission (`saved_inputs.ts`): always the link or copy (R117-1 [TS-FIX]).
 * A task reads the file it is given when it likes — minutes into its run,
 * or again at its end — so a file named on the command line, replaced or
 * removed while the job runs, would reach it and be stored under a name
 * digested from other bytes; the saved link holds the bytes submitted until
 * the run is over.
 *
 * Its `.info` (`inputs`) still names the file a serial run names (R114-2)
 * while that file is the one saved when the job is built — a link's device,
 * inode, size and modification time; a copy's size and MD5; the same
 * `<file>.md5` beside it: the same bytes, at a path that stays (the saved
 * one goes with its directory). Once the file was replaced, removed or
 * changed, the `.info` names the saved file, the bytes the job read (the
 * file named holds others). A result the task makes of its file input's path
 * (`String(doc)`) names the saved file, as Scout's batch jobs' do.
 *
 * A worker builds its job once and may run jobs of it for hours: before each
 * it asks whether a file its `.info` would name changed since
 * ({@link originalsChanged}, a `stat` each) and, if one did, builds the job
 * again so that the `.info` of the jobs it runs next names the saved file. A
 * submission asks at its end which saved files of its run a job's `.info`
 * names ({@link savedInUse}): those it keeps.
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

/** A file a job's `.info` names in place of its saved link or copy, as it was then. */
export interface OriginalFile {
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
 * link or copy (a file only recorded is given as named: there is no other).
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
  return same ? { file: f.file, dev, ino, size, mtimeMs } : null;
}

/** The MD5 of a file's bytes, or null when it cannot be read (then the copy is given). */
function md5Of(file: string): string | null {
  try {
    return hashFile(file);
  } catch {
    return null;
  }
}

/** What a job is built from: the values, and how its `.info` records some of them. */
export interface SavedValues {
  /** The input values, each saved file's replaced by its link or copy. */
  provided: Record<string, unknown>;
  /** Each link or copy given → the value as typed (`createJob`'s `typedAs`: `provided_inputs`). */
  typedAs: Map<string, string>;
  /**
   * Each link or copy whose file is still the one saved → that file
   * (`createJob`'s `recordAs`: `.info` `inputs`, R117-1).
   */
  recordAs: Map<string, string>;
  /** The files `recordAs` names, as they were then (what {@link originalsChanged} checks). */
  originals: OriginalFile[];
}

/**
 * The input values with each saved file's value replaced by its link or
 * copy (a list's items one by one), and what the job records of each: the
 * value as typed (`provided_inputs`), and in its `.info` `inputs` the file
 * named while it is still the one saved (see the module). A file only
 * recorded stays as typed.
 *
 * @param provided the parsed input values
 * @param saved the list
 * @param dir its directory
 * @returns the values to build the job from, and how to record them
 */
export function withSavedFiles(
  provided: Readonly<Record<string, unknown>>,
  saved: SavedInputs,
  dir: string,
): SavedValues {
  const copies = new Map<string, string>();
  const recordAs = new Map<string, string>();
  const originals: OriginalFile[] = [];
  for (const f of saved.files) {
    if (f.saved === undefined) continue;
    const copy = join(dir, f.saved);
    copies.set(`${f.input}\0${f.value}`, copy);
    const same = unchangedOriginal(f);
    if (same === null) continue;
    originals.push(same);
    recordAs.set(copy, f.file);
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
  return { provided: out, typedAs, recordAs, originals };
}

/**
 * Whether a file a job's `.info` would name in place of its saved link is
 * no longer as it was then (replaced, removed, edited): the `.info` would
 * name other bytes than the job read and its name was digested from.
 *
 * @param originals the files recorded as named ({@link withSavedFiles})
 * @returns true when one changed
 */
export function originalsChanged(originals: readonly OriginalFile[]): boolean {
  return originals.some((o) => !sameIdentity(fileStats(o.file), o));
}

/**
 * The saved files a job of the run names: those of files the task reads by
 * name (a `file` input, linked or copied) that are no longer the ones saved,
 * whose link or copy still holds the bytes submitted ({@link savedIntact}),
 * and that the `.info` of a job of the run names among its inputs — every
 * job read the saved file; one built since the file changed records it. A
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
