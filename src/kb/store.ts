/**
 * Reading an association index (the format: `store_format.ts`; building it:
 * `store_build.ts`): the footer read once, then a query binary-searches the
 * fences in memory and reads one block per entity with a positioned read,
 * so it never loads the whole file.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import {
  escapeValue,
  type Footer,
  INDEX_VERSION,
  type IndexMeta,
  MAGIC,
  type Section,
  TRAILER,
  unescapeValue,
} from "./store_format.ts";

/** A readable index: Scout's `match` (children/parents) and key lookup. */
export interface AssociationStore {
  /** What the index holds. */
  meta: IndexMeta;
  /**
   * Keys starting `entity~`, in key order: forward `source~target`, or with
   * `reverse` the reversed keys `target~source` (Scout's `reverse.match`).
   */
  match(entity: string, reverse?: boolean): string[];
  /** Field values of a forward key, or null when absent. */
  get(key: string): string[] | null;
  /** Releases the file. */
  close(): void;
}

const decoder = new TextDecoder();
let scratch = new Uint8Array(1 << 16);

function readAt(fd: number, start: number, end: number): string {
  if (scratch.length < end - start) scratch = new Uint8Array(end - start);
  const buf = scratch.subarray(0, end - start);
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, start + off);
    if (n === 0) break;
    off += n;
  }
  return decoder.decode(buf.subarray(0, off));
}

/**
 * The footer of the index open as `fd`, or null when the file is not a
 * complete index of this version; an error reading it is thrown.
 */
function readFooter(fd: number): Footer | null {
  const size = fstatSync(fd).size;
  if (size < MAGIC.length + TRAILER || readAt(fd, 0, MAGIC.length) !== MAGIC) return null;
  const at = Number.parseInt(readAt(fd, size - TRAILER, size), 10);
  if (!Number.isFinite(at) || at <= 0 || at >= size) return null;
  const text = readAt(fd, at, size - TRAILER);
  let footer: Footer | null;
  try {
    footer = JSON.parse(text) as Footer | null;
  } catch {
    return null; // not JSON: cut short
  }
  return footer?.meta?.version === INDEX_VERSION ? footer : null;
}

/** The error of an index file that is there but cannot be read. */
function unreadableIndex(path: string, e: unknown): ScoutError {
  const why = (e as Error)?.message ?? String(e);
  return new ScoutError("io", `Cannot read the index "${path}": ${why}`, { file: path, cause: e });
}

/**
 * Reads an index's footer, or null when the file is missing or not a
 * complete index.
 *
 * @param path the index file
 * @returns the open store, or null
 * @throws ScoutError `io` when the file is there but cannot be opened or read
 */
export function openStore(path: string): AssociationStore | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === "ENOENT") return null;
    throw unreadableIndex(path, e);
  }
  let footer: Footer | null;
  try {
    footer = readFooter(fd);
  } catch (e) {
    closeSync(fd);
    throw unreadableIndex(path, e);
  }
  if (footer === null) {
    closeSync(fd);
    return null;
  }
  const { forward, reverse } = footer;
  return {
    meta: footer.meta,
    match(entity, backwards = false) {
      const section = backwards && reverse ? reverse : forward;
      return scanSection(fd, section, escapeValue(entity) + "~", false)
        .map((l) => unescapeValue(keyOf(l)));
    },
    get(key) {
      const line = scanSection(fd, forward, escapeValue(key), true)[0];
      if (line === undefined) return null;
      const t = line.indexOf("\t");
      return t < 0 ? [] : line.slice(t + 1).split("\t").map(unescapeValue);
    },
    close() {
      try {
        closeSync(fd);
      } catch { /* closed */ }
    },
  };
}

/** A line's key: the text before its first tab. */
function keyOf(line: string): string {
  const t = line.indexOf("\t");
  return t < 0 ? line : line.slice(0, t);
}

/**
 * The lines of a section whose key starts with `prefix` (`exact`: equals
 * it), read block by block from the last fence below `prefix` until a key
 * past it.
 */
function scanSection(fd: number, section: Section, prefix: string, exact: boolean): string[] {
  const { fenceKeys, fenceOffsets } = section;
  // Last fence whose key is < prefix (matches may start inside its block).
  let lo = 0, hi = fenceKeys.length - 1, b = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (fenceKeys[mid]! < prefix) {
      b = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const out: string[] = [];
  for (; b < fenceKeys.length; b++) {
    const end = b + 1 < fenceOffsets.length ? fenceOffsets[b + 1]! : section.end;
    const text = readAt(fd, fenceOffsets[b]!, end);
    let past = false;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const key = keyOf(line);
      if (exact ? key === prefix : key.startsWith(prefix)) out.push(line);
      else if (key > prefix) {
        past = true;
        break;
      }
    }
    if (past || (exact && out.length)) break;
  }
  return out;
}
