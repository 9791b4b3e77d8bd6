/**
 * The files a deployed job's inputs name, saved when it is submitted
 * (`--deploy local|slurm`, R109-1). A worker — a batch job may start hours
 * later — builds the job again from the same command line: reading the files
 * as they are then, an edited or removed one made another job, and the one
 * submitted was never run. Scout saves a batch job's inputs into its batch
 * directory and the batch command loads them (`--load_inputs`); here the
 * command keeps the inputs as typed, and a directory keeps a copy of each
 * file whose content is an input's value (a `text` input given a file name)
 * or that the task reads (a `file` input). The submitting process and its
 * workers build the job from those copies: its name, digested from their
 * content, and its result are those of the job submitted, whatever becomes
 * of the files. Files passed by name (`path`, `noload` inputs…) are not
 * copied; those named by an absolute path, whose content the job's name
 * digests, are recorded (size, modification time), so that a worker that
 * cannot build the job submitted says which one changed.
 *
 * The directory: `inputs.json` (the list), `files/<n>/<basename>` (the
 * copies, a `<basename>.md5` beside one that had it: Scout digests a file by
 * it); its name is the MD5 of the list.
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { ScoutError } from "../../errors.ts";
import { writeAllSync } from "../../util/atomic_write.ts";
import { fileStats, isFile, readFailure } from "../../util/fs.ts";
import { md5hex } from "../../util/hash.ts";
import { loadsFileValue } from "../coerce.ts";
import { isStepFilePath } from "../digest.ts";
import type { InputDef } from "../job_types.ts";
import { arrayElementType } from "../types.ts";

/** The list's file in a saved directory. */
export const RECORD = "inputs.json";

/** A file an input's value (or an item of a list input) names on the command line. */
export interface InputFile {
  /** The input. */
  input: string;
  /** The value as typed. */
  value: string;
  /** The file (absolute). */
  file: string;
  /** Whether a copy is kept: its content is the input's value, or the task reads it. */
  keep: boolean;
}

/** A file as saved: copied, or recorded by its size and modification time. */
export interface SavedFile {
  /** The input. */
  input: string;
  /** The value as typed. */
  value: string;
  /** The file (absolute). */
  file: string;
  /** The copy, relative to the saved directory. */
  copy?: string;
  /** MD5 of the copy's bytes. */
  md5?: string;
  /** A file not copied: its size at submission. */
  size?: number;
  /** A file not copied: its modification time at submission (ms). */
  mtimeMs?: number;
}

/** What a saved directory holds (`inputs.json`). */
export interface SavedInputs {
  /** Format version. */
  version: 1;
  /** The files. */
  files: SavedFile[];
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
  const keep = type !== null && (loadsFileValue(def, type) || (type === "file" && !step));
  if (keep) return { input: def.name, value, file, keep };
  return isAbsolute(value) && !step ? { input: def.name, value, file, keep } : null;
}

/**
 * The files the command line's input values name (see the module): those a
 * copy is kept of, and those whose content names the job although the task
 * gets their name. A `jobname` input, and overrides (`--Wf#task`), stay as
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

/** Reads `src` through once, writing each chunk to `dest` (when given): the bytes' MD5. */
function copyHashing(src: string, dest: string | null): string {
  const hash = createHash("md5");
  const buf = new Uint8Array(1 << 20);
  const fd = openSync(src, "r");
  const out = dest !== null ? openSync(dest, "wx") : null;
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      const chunk = buf.subarray(0, n);
      hash.update(chunk);
      if (out !== null) writeAllSync(out, chunk);
    }
  } finally {
    closeSync(fd);
    if (out !== null) closeSync(out);
  }
  return hash.digest("hex");
}

/** The list, each kept file's MD5 from `hash` (given the file and where its copy goes). */
function recordOf(
  files: readonly InputFile[],
  hash: (f: InputFile, copy: string) => string,
): SavedInputs {
  const saved = files.map((f, i): SavedFile => {
    const { input, value, file } = f;
    try {
      if (f.keep) {
        const copy = join("files", String(i), basename(file));
        return { input, value, file, copy, md5: hash(f, copy) };
      }
      const st = fileStats(file);
      if (st === null) throw new Error("it is no longer a file");
      return { input, value, file, size: st.size, mtimeMs: st.mtimeMs };
    } catch (e) {
      throw new ScoutError(
        "deploy_failed",
        `Cannot save input file "${file}" (--${input}) for the workers: ${readFailure(e)}`,
        { file, cause: e },
      );
    }
  });
  return { version: 1, files: saved };
}

/** The directory a list is saved in: `<base>/<MD5 of the list>`. */
function savedDir(base: string, record: SavedInputs): string {
  return join(base, md5hex(JSON.stringify(record)));
}

/**
 * Where {@link saveInputFiles} would save the files, and the list, reading
 * them but writing nothing (a dry run).
 *
 * @param files the files
 * @param base the directory saved inputs go under
 * @returns the directory and the list
 */
export function planInputFiles(
  files: readonly InputFile[],
  base: string,
): { dir: string; record: SavedInputs } {
  const record = recordOf(files, (f) => copyHashing(f.file, null));
  return { dir: savedDir(base, record), record };
}

/**
 * Saves the files (see the module) under `base`: written into a temporary
 * directory, renamed to its digest's name; one saved before with the same
 * list is kept (and touched).
 *
 * @param files the files
 * @param base the directory saved inputs go under
 * @returns the saved directory and the list
 * @throws ScoutError `deploy_failed` naming a file that cannot be read
 */
export function saveInputFiles(
  files: readonly InputFile[],
  base: string,
): { dir: string; record: SavedInputs } {
  mkdirSync(base, { recursive: true });
  const tmp = mkdtempSync(join(base, ".saving-"));
  try {
    const record = recordOf(files, (f, copy) => {
      const dest = join(tmp, copy);
      mkdirSync(dirname(dest), { recursive: true });
      const md5 = copyHashing(f.file, dest);
      if (isFile(f.file + ".md5")) copyFileSync(f.file + ".md5", dest + ".md5");
      return md5;
    });
    writeFileSync(join(tmp, RECORD), JSON.stringify(record) + "\n");
    const dir = savedDir(base, record);
    try {
      renameSync(tmp, dir);
    } catch (e) {
      if (!existsSync(join(dir, RECORD))) throw e;
      rmSync(tmp, { recursive: true, force: true }); // the same files, saved before
      const now = new Date();
      utimesSync(dir, now, now);
    }
    return { dir, record };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
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

/** Whether a parsed list is a {@link SavedInputs}. */
function isSaved(v: unknown): v is SavedInputs {
  const r = v as SavedInputs;
  return typeof r === "object" && r !== null && r.version === 1 && Array.isArray(r.files) &&
    r.files.every((f) =>
      typeof f?.input === "string" && typeof f.value === "string" && typeof f.file === "string" &&
      (f.copy === undefined || typeof f.copy === "string")
    );
}

/**
 * Reads a saved directory's list; every copy must be there.
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
    if (f.copy !== undefined && !isFile(join(dir, f.copy))) {
      throw unusable(dir, `"${join(dir, f.copy)}" (a copy of "${f.file}") is gone`);
    }
  }
  return parsed;
}

/**
 * The input values with each saved file's value replaced by its copy (a
 * list's items one by one), and each copy → the value as typed (the job
 * records that, `createJob`'s `typedAs`).
 *
 * @param provided the parsed input values
 * @param saved the list
 * @param dir its directory
 * @returns the values to build the job from, and the copies as typed
 */
export function withSavedFiles(
  provided: Readonly<Record<string, unknown>>,
  saved: SavedInputs,
  dir: string,
): { provided: Record<string, unknown>; typedAs: Map<string, string> } {
  const copies = new Map<string, string>();
  for (const f of saved.files) {
    if (f.copy !== undefined) copies.set(`${f.input}\0${f.value}`, join(dir, f.copy));
  }
  const typedAs = new Map<string, string>();
  const swap = (name: string, v: unknown): unknown => {
    if (typeof v !== "string") return v;
    const copy = copies.get(`${name}\0${v}`);
    if (copy === undefined) return v;
    typedAs.set(copy, v);
    return copy;
  };
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(provided)) {
    out[name] = Array.isArray(v) ? v.map((x) => swap(name, x)) : swap(name, v);
  }
  return { provided: out, typedAs };
}

/**
 * Why the job built from these inputs is not the one submitted, when a file
 * passed by name changed: `the input file "F" (--x) changed since
 * submission` (or `is gone`); null when none did.
 *
 * @param saved the list
 * @returns the reason, or null
 */
export function changedInputFile(saved: SavedInputs): string | null {
  for (const f of saved.files) {
    if (f.copy !== undefined) continue;
    const st = fileStats(f.file);
    const what = `the input file "${f.file}" (--${f.input})`;
    if (st === null) return `${what} is gone since submission`;
    if (st.size !== f.size || st.mtimeMs !== f.mtimeMs) return `${what} changed since submission`;
  }
  return null;
}
