/**
 * The inference cache's index of its round entries by their messages part
 * (R120-2), what lets an offline miss's hint (`cache_miss_hint.ts`) find the
 * entries recorded for the same messages without reading the whole cache:
 * `<dir>/.index/<x>.keys`, `x` the first hex char of the part (16 files: a
 * fresh cache creates at most 16, each an inode create on the round's path), one
 * line `<messages part> <key>` a stored round, appended (written behind, as
 * the entry; an append of one short line, so concurrent writers' lines do not
 * mix on a local file system). A line may outlive its entry (removed, or
 * never written): its reader checks the entry.
 *
 * `<dir>/.index/complete` says every entry of the directory is indexed: it is
 * written with the index when the process that stores the index's first line
 * made the cache directory. Without it (a cache older than the index, or one
 * another process made) the hint also scans, within a bound, the entries the
 * index does not list.
 *
 * @module
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ScoutError } from "../errors.ts";
import { cannotText } from "../util/errno_text.ts";
import { cacheDirMadeHere } from "./cache_files.ts";
import { readAt } from "./cache_entry_ends.ts";
import { later } from "./write_behind.ts";

/** The index's directory in a cache directory. */
export const INDEX_DIR = ".index";

/** At most this much of an index file is read: its end, the newest lines (about 12,000). */
export const INDEX_READ_BYTES = 1 << 20;

const PART = /^[0-9a-f]{16}$/;
const KEY = /^[0-9a-f]{64}$/;

function indexFile(dir: string, messages: string): string {
  return join(dir, INDEX_DIR, `${messages.slice(0, 1)}.keys`);
}

/**
 * Appends `line` to `file` (made if missing, with the umask's mode).
 * [TS-FIX] (R124-2) Not `appendFileSync`: Deno's sets a file it creates to
 * 0666 whatever the umask (a `chmod` after the open), which left the index
 * world-writable in a shared home; one syscall fewer a stored round, too.
 */
function appendLine(file: string, line: string): void {
  const fd = openSync(file, "a");
  try {
    writeSync(fd, line);
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends the line of a stored round to the index (sync): the index's
 * directory made on its first line, with its `complete` mark when this
 * process made the cache directory.
 *
 * @param dir cache directory
 * @param key the entry's key
 * @param messages the entry's messages part (`CacheKeyParts.messages`)
 * @throws ScoutError `io` naming the index file (or directory) that failed
 *
 * @example
 * ```ts
 * import { indexEntry } from "./cache_index.ts";
 * indexEntry("/tmp/cache", "ab".repeat(32), "0123456789abcdef");
 * ```
 */
export function indexEntry(dir: string, key: string, messages: string): void {
  if (!PART.test(messages) || !KEY.test(key)) return; // not a line the reader would take
  const file = indexFile(dir, messages);
  try {
    appendIndexed(dir, file, `${messages} ${key}\n`);
  } catch (e) {
    // [TS-FIX] R139-3: a failed write's error names no file (`EPERM: …, write`)
    const path = (e as NodeJS.ErrnoException).path ?? file;
    throw new ScoutError("io", cannotText("write the cache's index", path, e), {
      file: path,
      cause: e,
    });
  }
}

/** Appends `line` to index file `file`, the index's directory made on its first line. */
function appendIndexed(dir: string, file: string, line: string): void {
  try {
    appendLine(file, line);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    const index = join(dir, INDEX_DIR);
    const made = mkdirSync(index, { recursive: true }) !== undefined;
    if (made && cacheDirMadeHere(dir)) {
      writeFileSync(join(index, "complete"), "every round entry of this cache is indexed\n");
    }
    appendLine(file, line);
  }
}

/**
 * {@link indexEntry} written behind, after the entry's own store.
 *
 * @param dir cache directory
 * @param key the entry's key
 * @param messages the entry's messages part
 * @returns settles once written: rejected with what failed
 */
export function indexEntryBehind(dir: string, key: string, messages: string): Promise<void> {
  return later(() => indexEntry(dir, key, messages));
}

/** What the index holds of one messages part. */
export interface Indexed {
  /** Keys of entries recorded for it, newest first, each once. */
  keys: string[];
  /** True when the index lists every entry of the cache (its `complete` mark). */
  complete: boolean;
}

/**
 * The keys the index lists for a messages part: from the end of its file
 * (at most {@link INDEX_READ_BYTES}), newest first, at most `max`.
 *
 * @param dir cache directory
 * @param messages the messages part
 * @param max how many keys at most
 * @returns the keys, and whether the index is complete
 */
export function indexedKeys(dir: string, messages: string, max: number): Indexed {
  const complete = existsSync(join(dir, INDEX_DIR, "complete"));
  if (!PART.test(messages)) return { keys: [], complete };
  const text = readEnd(indexFile(dir, messages), INDEX_READ_BYTES);
  const keys = new Set<string>();
  const lines = text?.split("\n") ?? [];
  for (let i = lines.length - 1; i >= 0 && keys.size < max; i--) {
    const [part, key] = lines[i]!.split(" ");
    if (part === messages && key !== undefined && KEY.test(key)) keys.add(key);
  }
  return { keys: [...keys], complete };
}

/** The last `bytes` of a file (a line cut at the start is not one the reader takes), or null when absent. */
function readEnd(file: string, bytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    return readAt(fd, size - length, length);
  } finally {
    closeSync(fd);
  }
}
