/**
 * Building an association index (the format: `store_format.ts`): the rows
 * in key order, the forward and reverse sections written block by block,
 * then the footer, to a temp file renamed into place.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname } from "node:path";
import { ScoutError } from "../errors.ts";
import { cannotText } from "../util/errno_text.ts";
import { removeDeadTemps, writerTag } from "../util/dead_temps.ts";
import { processTempFile } from "../util/process_temp_dir.ts";
import {
  BLOCK,
  escapeValue,
  type Footer,
  type IndexMeta,
  MAGIC,
  type Section,
  TRAILER,
} from "./store_format.ts";

/** Writer over a file descriptor that counts the bytes written. */
function writer(fd: number) {
  const enc = new TextEncoder();
  let offset = 0;
  const put = (bytes: Uint8Array) => {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    offset += bytes.length;
  };
  return {
    get offset() {
      return offset;
    },
    text(s: string) {
      put(enc.encode(s));
    },
  };
}

/**
 * Writes `count` sorted lines as a section: blocks of {@link BLOCK} lines,
 * each encoded at once, the first key of each block kept as its fence.
 */
function writeSection(
  w: ReturnType<typeof writer>,
  count: number,
  line: (k: number) => string,
  key: (k: number) => string,
): Section {
  const start = w.offset;
  const fenceKeys: string[] = [];
  const fenceOffsets: number[] = [];
  const parts: string[] = [];
  for (let b = 0; b < count; b += BLOCK) {
    const end = Math.min(count, b + BLOCK);
    parts.length = 0;
    for (let k = b; k < end; k++) parts.push(line(k));
    parts.push("");
    fenceKeys.push(key(b));
    fenceOffsets.push(w.offset);
    w.text(parts.join("\n"));
  }
  return { start, end: w.offset, fenceKeys, fenceOffsets };
}

/** Association rows handed to {@link buildStore}. */
export interface StoreInput {
  /** Calls `emit` for each association in file order (later duplicates win). */
  each(emit: (source: string, target: string, info: string[]) => void): void;
}

/**
 * The order of the rows by key (`a~b` string order) without sorting a
 * million strings: rows are ranked by their first entity (`a~` — all keys
 * with one first entity are contiguous), counting-sorted by that rank, and
 * each group is sorted by the second entity (stable: equal keys keep file
 * order, so the last one can win).
 */
function keyOrder(first: string[], second: string[], rows: Uint32Array): Uint32Array {
  const n = rows.length;
  const rankOf = new Map<string, number>();
  for (let k = 0; k < n; k++) rankOf.set(first[rows[k]!]!, 0);
  const unique = [...rankOf.keys()].map((e) => e + "~").sort();
  for (let r = 0; r < unique.length; r++) rankOf.set(unique[r]!.slice(0, -1), r);
  const ranks = new Uint32Array(n);
  const counts = new Uint32Array(unique.length + 1);
  for (let k = 0; k < n; k++) {
    const r = rankOf.get(first[rows[k]!]!)!;
    ranks[k] = r;
    counts[r + 1]!++;
  }
  rankOf.clear();
  for (let r = 0; r < unique.length; r++) counts[r + 1]! += counts[r]!;
  const starts = counts.slice();
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[counts[ranks[k]!]!++] = rows[k]!;
  const before = (a: number, b: number) => {
    const x = second[a]!, y = second[b]!;
    return x < y || (x === y && a < b);
  };
  for (let r = 0; r < unique.length; r++) {
    const lo = starts[r]!, hi = starts[r + 1]!;
    if (hi - lo < 2) continue;
    if (hi - lo <= 32) {
      // insertion sort: stable, and cheap for the usual few partners
      for (let i = lo + 1; i < hi; i++) {
        const v = order[i]!;
        let j = i - 1;
        while (j >= lo && before(v, order[j]!)) {
          order[j + 1] = order[j]!;
          j--;
        }
        order[j + 1] = v;
      }
    } else {
      const group = Array.from(order.subarray(lo, hi)).sort((a, b) => (before(a, b) ? -1 : 1));
      order.set(group, lo);
    }
  }
  return order;
}

/** The rows of an index, column by column: escaped entities, and each row's values line tail. */
interface Rows {
  sources: string[];
  targets: string[];
  /** `<TAB>`-joined escaped values, or "" for none. */
  values: string[];
}

/** Reads the input into rows: both orientations of an undirected association, entities interned. */
function collectRows(input: StoreInput, undirected: boolean): Rows {
  const sources: string[] = [];
  const targets: string[] = [];
  const values: string[] = [];
  // One string per entity: less memory, and hashes computed once for the rank maps.
  const interned = new Map<string, string>();
  const intern = (e: string) => {
    const known = interned.get(e);
    if (known !== undefined) return known;
    const v = escapeValue(e);
    interned.set(e, v);
    return v;
  };
  const add = (a: string, b: string, info: string) => {
    sources.push(intern(a));
    targets.push(intern(b));
    values.push(info);
  };
  input.each((source, target, info) => {
    const v = info.length ? "\t" + info.map(escapeValue).join("\t") : "";
    add(source, target, v);
    if (undirected && source !== target) add(target, source, v);
  });
  interned.clear();
  return { sources, targets, values };
}

/** The rows in key order, the last of equal keys kept (the order array is reused). */
function forwardRows({ sources, targets }: Rows): Uint32Array {
  const all = new Uint32Array(sources.length);
  for (let i = 0; i < all.length; i++) all[i] = i;
  const order = keyOrder(sources, targets, all);
  let count = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!, j = order[k + 1];
    if (j !== undefined && sources[i] === sources[j] && targets[i] === targets[j]) continue;
    order[count++] = i;
  }
  return order.subarray(0, count);
}

/** Writes the whole index to `fd`: magic, forward section, reverse section, footer, trailer. */
function writeIndex(fd: number, meta: Omit<IndexMeta, "count">, rows: Rows): IndexMeta {
  const { sources, targets, values } = rows;
  const w = writer(fd);
  w.text(MAGIC);
  // Forward: `source~target<TAB>values`, the last of equal keys wins.
  const kept = forwardRows(rows);
  const count = kept.length;
  const forward = writeSection(
    w,
    count,
    (k) => sources[kept[k]!] + "~" + targets[kept[k]!] + values[kept[k]!],
    (k) => sources[kept[k]!] + "~" + targets[kept[k]!],
  );
  values.length = 0;
  let reverse: Section | null = null;
  if (!meta.undirected) {
    const rev = keyOrder(targets, sources, kept);
    const key = (k: number) => targets[rev[k]!] + "~" + sources[rev[k]!];
    reverse = writeSection(w, rev.length, key, key);
  }
  const full: IndexMeta = { ...meta, count };
  const footer = JSON.stringify({ meta: full, forward, reverse } satisfies Footer);
  const at = w.offset;
  w.text(footer);
  w.text(String(at).padStart(TRAILER - 1, "0") + "\n");
  return full;
}

/**
 * Builds an index file atomically (temp file + rename), first removing the
 * temp files of builds of it that died (`<idx>.<pid>@<host>.<ms>.tmp`:
 * {@link removeDeadTemps}). The temp file is removed at the process's exit
 * if the build has not ended by then (`processTempFile`, R112-4).
 *
 * @param path the index file
 * @param meta what it is built from (`count` is filled in)
 * @param input the associations
 * @returns the meta written
 */
export function buildStore(
  path: string,
  meta: Omit<IndexMeta, "count">,
  input: StoreInput,
): IndexMeta {
  mkdirSync(dirname(path), { recursive: true });
  removeDeadTemps(dirname(path), `${basename(path)}.`);
  const tmp = `${path}.${writerTag()}.${Date.now()}.tmp`;
  const forget = processTempFile(tmp); // an exit (Ctrl-C, SIGTERM with the CLI's listeners) removes it
  try {
    const fd = openSync(tmp, "w");
    try {
      const full = writeIndex(fd, meta, collectRows(input, meta.undirected));
      closeSync(fd);
      renameSync(tmp, path);
      return full;
    } catch (e) {
      try {
        closeSync(fd);
      } catch { /* already closed */ }
      rmSync(tmp, { force: true });
      throw indexError(path, e);
    }
  } finally {
    forget();
  }
}

/** A failed write of index `path` naming it (a full disk's `write` names no file: R92-2). */
function indexError(path: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) return e; // not the file system's
  return new ScoutError("io", cannotText("write the index", path, e), { file: path, cause: e });
}
