/**
 * The association index of one database, kept next to the knowledge base
 * (`<kb>/.scout-ai-index/<db>.idx`): one file of sorted `source~target`
 * lines with their field values (the forward section), the reversed keys
 * (the reverse section, directed databases only), and a JSON footer with a
 * sparse index of block-first keys ("fences") and what the index was built
 * from. A query binary-searches the fences in memory and reads one block
 * per entity with a positioned read, so it never loads the whole file.
 * Built to a temp file and renamed: a reader sees a complete index or none
 * (a file without a valid footer is not an index). Chosen over SQLite by
 * measurement (`docs/design-notes.md`, "Knowledge bases").
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { ScoutError } from "../errors.ts";

/** What an index was built from and what it holds. */
export interface IndexMeta {
  /** Format version. */
  version: number;
  /** The TSV file it was built from. */
  tsv: string;
  /** Its size in bytes when built. */
  size: number;
  /** Its modification time (ms) when built. */
  mtimeMs: number;
  /** Digest of the options the index depends on. */
  optionsKey: string;
  /** Source field name. */
  source: string;
  /** Target field name. */
  target: string;
  /** Info field names (the values of each association). */
  fields: string[];
  /** Whether both orientations are held. */
  undirected: boolean;
  /** Number of keys in the forward section. */
  count: number;
}

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

/** Current on-disk format version. */
export const INDEX_VERSION = 1;
const MAGIC = "#scout-ai association index\n";
const TRAILER = 16;
const BLOCK = 64;

interface Section {
  start: number;
  end: number;
  fenceKeys: string[];
  fenceOffsets: number[];
}

interface Footer {
  meta: IndexMeta;
  forward: Section;
  reverse: Section | null;
}

function escapeValue(v: string): string {
  return /[\t\n\\]/.test(v)
    ? v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n")
    : v;
}

function unescapeValue(v: string): string {
  return v.includes("\\")
    ? v.replace(/\\(.)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c))
    : v;
}

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

/**
 * Builds an index file atomically (temp file + rename).
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
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, "w");
  try {
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
      if (meta.undirected && source !== target) add(target, source, v);
    });
    interned.clear();
    const w = writer(fd);
    w.text(MAGIC);
    // Forward: `source~target<TAB>values`, the last of equal keys wins.
    const all = new Uint32Array(sources.length);
    for (let i = 0; i < all.length; i++) all[i] = i;
    const order = keyOrder(sources, targets, all);
    let count = 0;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!, j = order[k + 1];
      if (j !== undefined && sources[i] === sources[j] && targets[i] === targets[j]) continue;
      order[count++] = i;
    }
    const kept = order.subarray(0, count);
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
    closeSync(fd);
    renameSync(tmp, path);
    return full;
  } catch (e) {
    try {
      closeSync(fd);
    } catch { /* already closed */ }
    rmSync(tmp, { force: true });
    throw e;
  }
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
  const scan = (section: Section, prefix: string, exact: boolean): string[] => {
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
        const t = line.indexOf("\t");
        const key = t < 0 ? line : line.slice(0, t);
        if (exact ? key === prefix : key.startsWith(prefix)) out.push(line);
        else if (key > prefix) {
          past = true;
          break;
        }
      }
      if (past || (exact && out.length)) break;
    }
    return out;
  };
  const keyOf = (l: string) => {
    const t = l.indexOf("\t");
    return t < 0 ? l : l.slice(0, t);
  };
  return {
    meta: footer.meta,
    match(entity, reverse = false) {
      const section = reverse && footer.reverse ? footer.reverse : footer.forward;
      return scan(section, escapeValue(entity) + "~", false).map((l) => unescapeValue(keyOf(l)));
    },
    get(key) {
      const line = scan(footer.forward, escapeValue(key), true)[0];
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
