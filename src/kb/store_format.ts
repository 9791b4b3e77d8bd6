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
 * measurement (`docs/design-notes.md`, "Knowledge bases"). This module is
 * the format both sides share; `store_build.ts` writes it, `store.ts` reads it.
 *
 * @module
 */

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
  /**
   * Its status-change time (ms) when built: a file replaced keeping its size
   * and mtime (`cp -p`, `touch -r`) has a new one. Absent in indexes written
   * before it was recorded, which are then rebuilt.
   */
  ctimeMs?: number;
  /** Its inode when built: a file renamed over it (`rsync -a`, `tar x`) has a new one. */
  ino?: number;
  /**
   * When the build's stat and read of it began (ms since the epoch): an
   * index of a file changed within `RACY_MS` before is not trusted
   * (`util/racy_stat.ts`). Absent in indexes written before it was recorded.
   */
  readAtMs?: number;
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

/** Current on-disk format version. */
export const INDEX_VERSION = 1;
/** The first line of an index file. */
export const MAGIC = "#scout-ai association index\n";
/** Length of the last line: the footer's offset, zero-padded, and a newline. */
export const TRAILER = 16;
/** Lines per block (one fence each). */
export const BLOCK = 64;

/** Where a section lies and its fences (first key and offset of each block). */
export interface Section {
  start: number;
  end: number;
  fenceKeys: string[];
  fenceOffsets: number[];
}

/** The JSON footer: what the index holds and where its sections are. */
export interface Footer {
  meta: IndexMeta;
  forward: Section;
  reverse: Section | null;
}

/** A key or value as written: tab, newline and backslash escaped. */
export function escapeValue(v: string): string {
  return /[\t\n\\]/.test(v)
    ? v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n")
    : v;
}

/** A key or value as read back (see {@link escapeValue}). */
export function unescapeValue(v: string): string {
  return v.includes("\\")
    ? v.replace(/\\(.)/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c))
    : v;
}
