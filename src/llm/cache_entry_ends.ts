/**
 * The fields of a round entry an offline miss's hint compares
 * (`cache_miss_hint.ts`), read from the entry's two ends when it is big: the
 * store writes an entry as `JSON.stringify` of `{v, created, endpoint,
 * backend, model, round, items, …, parts}`, so its format and origin open
 * the file and its parts close it, whatever the length of the reply and
 * history between them. An entry written otherwise is read whole.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  futimesSync,
  openSync,
  readFileSync,
  readSync,
  type Stats,
} from "node:fs";

/** An entry's text: whole when small, else its first and last bytes. */
export interface EntryEnds {
  /** The whole text (a small entry). */
  whole?: string;
  /** Its first bytes (a big entry). */
  head?: string;
  /** Its last bytes (the whole text, for a small entry). */
  tail: string;
}

const utf8 = new TextDecoder();

/**
 * Up to `length` bytes of an open file from `position`, as UTF-8 text.
 *
 * @param fd the open file
 * @param position where to start
 * @param length how many bytes at most
 * @returns the text read
 */
export function readAt(fd: number, position: number, length: number): string {
  const buf = new Uint8Array(length);
  const n = readSync(fd, buf, 0, length, position);
  return utf8.decode(buf.subarray(0, n));
}

/**
 * Gives an entry read for a miss's hint its access time back (R147-3):
 * `llm cache clean --older` counts the newer of an entry's access and
 * modification times as when it was last stored or hit (`cache.ts` sets the
 * access time on a hit; the kernel does on any read, at most daily under
 * `relatime`), and a read to compare an entry is no use of it — a miss
 * scanning 2,000 entries kept them all another month. Only when the read
 * moved it (never under `noatime`); through the descriptor read, so never
 * an entry renamed over it meanwhile; only the owner may set a file's
 * times, so another member's entry keeps what the kernel gave it.
 */
function keepAccessTime(fd: number, before: Stats): void {
  try {
    const after = fstatSync(fd);
    if (after.atimeMs === before.atimeMs) return;
    futimesSync(fd, before.atimeMs / 1000, after.mtimeMs / 1000);
  } catch { /* not ours (EPERM): the kernel's access time stands */ }
}

/**
 * Reads an entry's ends — its end first, and its start only when `needle`
 * (the request's messages part as the entry writes it) is in it: an entry of
 * other messages costs one read of `tail` bytes. The entry's access time is
 * left as it was (a read to compare it does not use it).
 *
 * @param file the entry's file
 * @param o bytes to read from the start and the end, and what the end must hold
 * @returns the ends, or null when the needle is not there
 *
 * @example
 * ```ts
 * import { entryEnds } from "./cache_entry_ends.ts";
 * entryEnds("/tmp/cache/k.json", { head: 4096, tail: 512, needle: '"messages":"0123456789abcdef"' });
 * ```
 */
export function entryEnds(
  file: string,
  o: { head: number; tail: number; needle: string },
): EntryEnds | null {
  const fd = openSync(file, "r");
  let before: Stats | null = null;
  try {
    before = fstatSync(fd);
    const size = before.size;
    if (size <= o.head + o.tail) {
      const whole = readAt(fd, 0, size);
      return whole.includes(o.needle) ? { whole, tail: whole } : null;
    }
    const tail = readAt(fd, size - o.tail, o.tail);
    return tail.includes(o.needle) ? { head: readAt(fd, 0, o.head), tail } : null;
  } finally {
    if (before) keepAccessTime(fd, before);
    closeSync(fd);
  }
}

const STRING = String.raw`("(?:[^"\\]|\\.)*")`;
/** The start of an entry as the store writes it: its format, then when and where it was recorded. */
const HEAD = new RegExp(
  String
    .raw`^\{"v":(\d+),"created":"(?:[^"\\]|\\.)*","endpoint":${STRING},"backend":${STRING},"model":${STRING},`,
);
/** The end: its parts (strings of hex digits), the last field. */
const TAIL = /"parts":(\{[^{}]*\})\}\s*$/;

function parsed(text: string): Record<string, unknown> | null {
  try {
    const x = JSON.parse(text);
    return typeof x === "object" && x !== null && !Array.isArray(x) ? x : null;
  } catch {
    return null; // not JSON (torn, or not an entry): not compared
  }
}

/**
 * The fields a hint compares — `v`, `endpoint`, `backend`, `model`, `parts` —
 * of an entry read by {@link entryEnds}: parsed whole when small, else from
 * its ends; an entry whose ends are not as the store writes them is read
 * whole.
 *
 * @param file the entry's file
 * @param ends its ends
 * @returns the fields (a parsed small entry: all of them), or null when unreadable
 */
export function entryFields(file: string, ends: EntryEnds): Record<string, unknown> | null {
  if (ends.whole !== undefined) return parsed(ends.whole);
  const h = HEAD.exec(ends.head ?? "");
  const t = TAIL.exec(ends.tail);
  if (h && t) {
    const fields = parsed(`{"v":${h[1]},"endpoint":${h[2]},"backend":${h[3]},"model":${h[4]}}`);
    const parts = parsed(t[1]!);
    if (fields && parts) return { ...fields, parts };
  }
  try {
    return parsed(readFileSync(file, "utf8"));
  } catch {
    return null; // removed since: not compared
  }
}
