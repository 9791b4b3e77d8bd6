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

/** Buffered writer over a file descriptor. */
function writer(fd: number) {
  const enc = new TextEncoder();
  let parts: string[] = [];
  let pending = 0;
  let offset = 0;
  const flush = () => {
    if (parts.length === 0) return;
    const bytes = enc.encode(parts.join(""));
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    parts = [];
    pending = 0;
  };
  return {
    get offset() {
      return offset;
    },
    write(s: string, byteLength: number) {
      parts.push(s);
      pending += s.length;
      offset += byteLength;
      if (pending > 1 << 20) flush();
    },
    flush,
  };
}

function byteLength(s: string): number {
  // Fast path for ASCII, exact for the rest.
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 127) return new TextEncoder().encode(s).length;
  }
  return s.length;
}

/** Writes sorted lines (`key\t…`) as a section with fences; returns it. */
function writeSection(
  w: ReturnType<typeof writer>,
  lines: string[],
  keyOf: (line: string) => string,
): Section {
  const start = w.offset;
  const fenceKeys: string[] = [];
  const fenceOffsets: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i % BLOCK === 0) {
      fenceKeys.push(keyOf(line));
      fenceOffsets.push(w.offset);
    }
    const text = line + "\n";
    w.write(text, byteLength(text));
  }
  return { start, end: w.offset, fenceKeys, fenceOffsets };
}

/** Association rows handed to {@link buildStore}. */
export interface StoreInput {
  /** Calls `emit` for each association in file order (later duplicates win). */
  each(emit: (source: string, target: string, info: string[]) => void): void;
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
    // Forward lines carry a sequence number after the key so equal keys keep file order.
    let lines: string[] = [];
    let seq = 0;
    const add = (a: string, b: string, info: string[]) => {
      const s = (seq++).toString(16).padStart(8, "0");
      lines.push(
        `${escapeValue(a)}~${escapeValue(b)}\t${s}${info.length ? "\t" : ""}${
          info.map(escapeValue).join("\t")
        }`,
      );
    };
    input.each((source, target, info) => {
      add(source, target, info);
      if (meta.undirected && source !== target) add(target, source, info);
    });
    lines.sort();
    // Drop earlier duplicates (the last one wins) and the sequence numbers.
    const out: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const tab = line.indexOf("\t");
      const next = lines[i + 1];
      if (
        next !== undefined && next.length > tab && next.charCodeAt(tab) === 9 &&
        next.startsWith(line.slice(0, tab + 1))
      ) continue;
      out.push(line.slice(0, tab) + line.slice(tab + 9));
    }
    lines = [];
    const w = writer(fd);
    w.write(MAGIC, MAGIC.length);
    const keyOf = (l: string) => {
      const t = l.indexOf("\t");
      return t < 0 ? l : l.slice(0, t);
    };
    const forward = writeSection(w, out, keyOf);
    let reverse: Section | null = null;
    const count = out.length;
    if (!meta.undirected) {
      const rev = out.map((l) => {
        const k = keyOf(l);
        const i = k.indexOf("~");
        return `${k.slice(i + 1)}~${k.slice(0, i)}`;
      });
      out.length = 0;
      rev.sort();
      reverse = writeSection(w, rev, (l) => l);
    }
    const full: IndexMeta = { ...meta, count };
    const footer = JSON.stringify({ meta: full, forward, reverse } satisfies Footer);
    const at = w.offset;
    w.write(footer, byteLength(footer));
    const trailer = String(at).padStart(TRAILER - 1, "0") + "\n";
    w.write(trailer, TRAILER);
    w.flush();
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

function readAt(fd: number, start: number, end: number): string {
  const buf = new Uint8Array(end - start);
  let off = 0;
  while (off < buf.length) {
    const n = readSync(fd, buf, off, buf.length - off, start + off);
    if (n === 0) break;
    off += n;
  }
  return new TextDecoder().decode(buf.subarray(0, off));
}

/**
 * Reads an index's footer, or null when the file is missing or not a
 * complete index.
 *
 * @param path the index file
 * @returns the open store, or null
 */
export function openStore(path: string): AssociationStore | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  let footer: Footer;
  try {
    const size = fstatSync(fd).size;
    if (size < MAGIC.length + TRAILER || readAt(fd, 0, MAGIC.length) !== MAGIC) throw 0;
    const at = Number.parseInt(readAt(fd, size - TRAILER, size), 10);
    if (!Number.isFinite(at) || at <= 0 || at >= size) throw 0;
    footer = JSON.parse(readAt(fd, at, size - TRAILER)) as Footer;
    if (footer.meta?.version !== INDEX_VERSION) throw 0;
  } catch {
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
