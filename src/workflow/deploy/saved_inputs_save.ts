/**
 * Saving the files a deployed job's inputs name (`saved_inputs.ts`, R109-1),
 * and a dry run's plan of it: a file the task reads is hard-linked (no byte
 * copied), copied up to {@link COPY_LIMIT} where it cannot be, else only
 * recorded; a file whose content is the value is copied. The list is made
 * first — the links into a temporary directory, the copies only hashed — and
 * names the directory: when one with that name was saved before, nothing is
 * copied and the temporary links go; else the copies are made beside the
 * links and the directory renamed into place.
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { isScoutError, ScoutError } from "../../errors.ts";
import { errnoReason } from "../../util/errno_text.ts";
import { fileStats, isFile, readFailure } from "../../util/fs.ts";
import { md5hex } from "../../util/hash.ts";
import {
  COPY_LIMIT,
  type InputFile,
  loadSavedInputs,
  RECORD,
  type SavedDir,
  type SavedFile,
  type SavedInputs,
} from "./saved_inputs.ts";

/** A file the task reads that is neither linked nor copied, and why (the submission warns). */
export interface UnsavedFile {
  /** The input. */
  input: string;
  /** The file (absolute). */
  file: string;
  /** Why it was not saved. */
  why: string;
}

/** A saved (or planned) directory, its list, and the files it could not save. */
export interface SavedPlan extends SavedDir {
  /** The files the task reads that are only recorded. */
  unsaved: UnsavedFile[];
}

/** Links a file (its real path) to `saved` (relative): the link's stats, or why it cannot. */
type Linker = (real: string, saved: string) => Stats | { why: string };

/** What making the list needs. */
interface ListContext {
  /** Links a file the task reads. */
  link: Linker;
  /** Where the files go (named in a warning). */
  base: string;
  /** Collects the files not saved. */
  unsaved: UnsavedFile[];
}

/**
 * Reads `src` through once, writing each chunk to `dest` (when given) after
 * the one before (`writeAllSync` would write each at the file's start): the
 * bytes' MD5.
 */
function copyHashing(src: string, dest: string | null): string {
  const hash = createHash("md5");
  const buf = new Uint8Array(1 << 20);
  const fd = openSync(src, "r");
  const out = dest !== null ? openSync(dest, "wx") : null;
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) {
      const chunk = buf.subarray(0, n);
      hash.update(chunk);
      for (let at = 0; out !== null && at < n;) at += writeSync(out, chunk, at, n - at);
    }
  } finally {
    closeSync(fd);
    if (out !== null) closeSync(out);
  }
  return hash.digest("hex");
}

/**
 * The MD5 of a file's bytes, read through once.
 *
 * @param path the file
 * @returns hex digest
 */
export function hashFile(path: string): string {
  return copyHashing(path, null);
}

/** A size in MiB or GiB, for a warning. */
function sizeOf(bytes: number): string {
  const [n, unit] = bytes >= 2 ** 30 ? [bytes / 2 ** 30, "GiB"] : [bytes / 2 ** 20, "MiB"];
  return `${n.toFixed(1).replace(/\.0$/, "")} ${unit}`;
}

/** Why a hard link failed, in words. */
function linkFailure(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === "EXDEV") return "it is on another file system (EXDEV)";
  if (code === "EPERM") return "linking it is not permitted (EPERM)";
  if (code === "EMLINK") return "it has too many links (EMLINK)";
  if (code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS") {
    return `the file system has no hard links (${code})`;
  }
  return readFailure(e);
}

/** One file's entry in the list (see the module); a link is made, a copy only hashed. */
function entryOf(f: InputFile, i: number, ctx: ListContext): SavedFile {
  const { input, value, file } = f;
  try {
    const st = fileStats(file);
    if (st === null) throw new Error("it is no longer a file");
    const recorded = { size: st.size, mtimeMs: st.mtimeMs };
    if (!f.keep) return { input, value, file, ...recorded };
    const saved = join("files", String(i), basename(file));
    const side = isFile(file + ".md5") ? { sideMd5: readFileSync(file + ".md5", "utf8") } : {};
    if (f.link) {
      const l = ctx.link(realpathSync(file), saved);
      if (!("why" in l)) {
        const { dev, ino, size, mtimeMs } = l;
        return { input, value, file, kept: "link", saved, ...side, dev, ino, size, mtimeMs };
      }
      if (st.size > COPY_LIMIT) {
        const why =
          `${sizeOf(st.size)}, more than the ${sizeOf(COPY_LIMIT)} a copy may take, and ` +
          `it cannot be hard-linked into ${ctx.base}: ${l.why}`;
        ctx.unsaved.push({ input, file, why });
        return { input, value, file, kept: "none", ...recorded };
      }
    }
    const md5 = hashFile(file);
    return { input, value, file, kept: "copy", saved, ...side, md5, size: st.size };
  } catch (e) {
    throw new ScoutError(
      "deploy_failed",
      `Cannot save input file "${file}" (--${input}) for the workers: ${readFailure(e)}`,
      { file, cause: e },
    );
  }
}

/** The list of `files` (see {@link entryOf}). */
function listOf(files: readonly InputFile[], ctx: ListContext): SavedInputs {
  return { version: 2, files: files.map((f, i) => entryOf(f, i, ctx)) };
}

/** The directory a list is saved in: `<base>/<MD5 of the list>`. */
function savedDir(base: string, record: SavedInputs): string {
  return join(base, md5hex(JSON.stringify(record)));
}

/** The device of `path`, or of its nearest existing parent. */
function deviceOf(path: string): number {
  for (let p = path;; p = dirname(p)) {
    try {
      return statSync(p).dev;
    } catch (e) {
      if (dirname(p) === p) throw e;
    }
  }
}

/**
 * Where {@link saveInputFiles} would save the files, and the list, writing
 * nothing (a dry run): a file the task reads would be linked when it is on
 * the file system of `base`; only the files that would be copied are read.
 *
 * @param files the files
 * @param base the directory saved inputs go under
 * @returns the directory, the list, and the files that would not be saved
 * @throws ScoutError `deploy_failed` naming a file that cannot be read
 */
export function planInputFiles(files: readonly InputFile[], base: string): SavedPlan {
  const dev = deviceOf(base);
  const link: Linker = (real) => {
    const st = statSync(real);
    return st.dev === dev ? st : { why: "it is on another file system" };
  };
  const unsaved: UnsavedFile[] = [];
  const record = listOf(files, { link, base, unsaved });
  return { dir: savedDir(base, record), record, unsaved };
}

/** Whether `dir` holds a usable saved list; a damaged one is removed. */
function savedBefore(dir: string): boolean {
  if (!existsSync(dir)) return false;
  try {
    loadSavedInputs(dir);
    return true;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return false;
  }
}

/** Where a save writes: the directory saved inputs go under, and the one being filled. */
interface SaveTarget {
  /** The directory saved inputs go under (named in an error: its file system is the one full). */
  base: string;
  /** The temporary directory holding the links, renamed into place at the end. */
  tmp: string;
}

/**
 * The error of a save that failed making a copy or writing a file into the
 * saved directory (a full disk, a quota, the file gone), said as every other
 * save failure is — `Cannot save input file "F" (--x) for the workers in
 * BASE: no space left on device` — or, for the list, naming it (R117-2).
 */
function writeFailure(e: unknown, base: string, entry?: SavedFile): ScoutError {
  if (isScoutError(e, "deploy_failed")) return e;
  const what = entry !== undefined
    ? `input file "${entry.file}" (--${entry.input})`
    : `the list of input files (${RECORD})`;
  return new ScoutError(
    "deploy_failed",
    `Cannot save ${what} for the workers in ${base}: ${errnoReason(e)}`,
    { file: entry?.file ?? base, cause: e },
  );
}

/** Makes an entry's copy and sidecar in `tmp` (its link is there). */
function publishEntry(e: SavedFile, from: string, tmp: string): void {
  const dest = join(tmp, e.saved!);
  if (e.kept === "copy") {
    mkdirSync(dirname(dest), { recursive: true });
    if (copyHashing(from, dest) !== e.md5) {
      throw new ScoutError(
        "deploy_failed",
        `Cannot save input file "${e.file}" (--${e.input}) for the workers: ` +
          "it changed while it was being copied",
        { file: e.file },
      );
    }
  }
  if (e.sideMd5 !== undefined) writeFileSync(dest + ".md5", e.sideMd5);
}

/**
 * Makes the copies and sidecars of `record` in `tmp` (which holds its
 * links), writes the list and renames `tmp` to `dir`.
 *
 * @returns false when `dir` was saved meanwhile (by a deploy of the same files)
 * @throws ScoutError `deploy_failed` naming the input, or the list, and `base`
 */
function publish(
  files: readonly InputFile[],
  record: SavedInputs,
  { base, tmp }: SaveTarget,
  dir: string,
): boolean {
  record.files.forEach((e, i) => {
    if (e.saved === undefined) return;
    try {
      publishEntry(e, files[i]!.file, tmp);
    } catch (err) {
      throw writeFailure(err, base, e);
    }
  });
  try {
    writeFileSync(join(tmp, RECORD), JSON.stringify(record) + "\n");
    renameSync(tmp, dir);
    return true;
  } catch (e) {
    if (!existsSync(join(dir, RECORD))) throw writeFailure(e, base);
    return false;
  }
}

/**
 * Saves the files (see the module) under `base`, in the directory their list
 * names; one saved before with the same list is kept (and touched), and
 * nothing is copied.
 *
 * @param files the files
 * @param base the directory saved inputs go under
 * @returns the saved directory, the list, and the files only recorded
 * @throws ScoutError `deploy_failed` naming a file that cannot be read
 */
export function saveInputFiles(files: readonly InputFile[], base: string): SavedPlan {
  mkdirSync(base, { recursive: true });
  const tmp = mkdtempSync(join(base, ".saving-"));
  const link: Linker = (real, saved) => {
    const dest = join(tmp, saved);
    mkdirSync(dirname(dest), { recursive: true });
    try {
      linkSync(real, dest);
    } catch (e) {
      rmSync(dirname(dest), { recursive: true, force: true }); // files/<n>, its own
      return { why: linkFailure(e) };
    }
    return statSync(dest);
  };
  try {
    const unsaved: UnsavedFile[] = [];
    const record = listOf(files, { link, base, unsaved });
    const dir = savedDir(base, record);
    if (savedBefore(dir) || !publish(files, record, { base, tmp }, dir)) {
      rmSync(tmp, { recursive: true, force: true }); // links only: the same files, saved before
      const now = new Date();
      utimesSync(dir, now, now);
    }
    return { dir, record, unsaved };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
