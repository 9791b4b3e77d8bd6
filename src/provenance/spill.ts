/**
 * A write-once store of texts for one report (issue 16): each chat's facts
 * are kept as the JSON text they travel in, out of the heap, and read back
 * when something needs a file's evidence again (an event's copies, a job's
 * log tokens, the `--json` document). Small walks keep the texts in memory;
 * past {@link SPILL_AT} characters they move to an anonymous temporary file
 * (created and unlinked at once: nothing is left behind, even on a crash).
 * A store too big to keep in memory on a machine without a writable temp
 * directory keeps them in memory anyway: slower to free, never wrong.
 *
 * @module
 */
import {
  closeSync,
  mkdtempSync,
  openSync,
  readSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { Buffer } from "node:buffer";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grown } from "./typed.ts";

/** Bytes written to the file at once. */
const WRITE_BLOCK = 1 << 20;
const encoder = new TextEncoder();

/** Characters kept in memory before the texts move to a temporary file. */
export const SPILL_AT = 8 << 20;

/** Texts by number, in the order they were added. */
export interface TextSpill {
  /** Stores a text; returns its number (0, 1, 2 …). */
  add(text: string): number;
  /** The text stored as `id`. */
  get(id: number): string;
  /** Releases the file (the texts are gone). Safe to call twice. */
  close(): void;
}

/** Closes the files of spills nobody closed, once they are collected. */
const orphans = new FinalizationRegistry<{ fd: number }>((held) => {
  try {
    closeSync(held.fd);
  } catch { /* already closed */ }
});

/**
 * A text store.
 *
 * @param o `spillAt`: characters kept in memory before moving to a file
 *   (default {@link SPILL_AT}; 0: always a file); `dir`: the temporary
 *   directory (default `os.tmpdir()`)
 * @returns the store
 */
export function textSpill(o: { spillAt?: number; dir?: string } = {}): TextSpill {
  const st: SpillState = {
    spillAt: o.spillAt ?? SPILL_AT,
    dir: o.dir,
    memory: [],
    memoryChars: 0,
    held: { fd: -1 },
    offsets: new Float64Array(1024),
    count: 0,
    buffer: Buffer.alloc(1 << 16),
    block: new Uint8Array(0),
    blockUsed: 0,
    written: 0,
  };
  const spill: TextSpill = {
    add(text) {
      if (st.memory !== null) {
        st.memory.push(text);
        st.memoryChars += text.length;
        if (st.memoryChars > st.spillAt && toFile(st, spill)) return st.count - 1;
        return st.memory.length - 1;
      }
      write(st, text);
      return st.count - 1;
    },
    get: (id) => (st.memory !== null ? st.memory[id]! : readText(st, id)),
    close() {
      st.memory = [];
      if (st.held.fd !== -1) {
        orphans.unregister(spill);
        try {
          closeSync(st.held.fd);
        } catch { /* already closed */ }
        st.held.fd = -1;
      }
    },
  };
  return spill;
}

/** A spill's texts: in memory, or in its file (`held`, which the orphan registry closes). */
interface SpillState {
  readonly spillAt: number;
  /** The temporary directory (undefined: `os.tmpdir()`, read when the texts move). */
  readonly dir: string | undefined;
  /** The texts while in memory; null once they moved to the file. */
  memory: string[] | null;
  memoryChars: number;
  /** The file's descriptor (-1: none), apart so that the registry can close it. */
  readonly held: { fd: number };
  /** Byte offset of text i; `offsets[count]` is the end. */
  offsets: Float64Array;
  count: number;
  /** Reused for reading a text back. */
  buffer: Buffer;
  /** Texts not written yet, encoded into one block and written together. */
  block: Uint8Array;
  blockUsed: number;
  /** Bytes in the file. */
  written: number;
}

/** Moves the texts to an unlinked temp file; false (kept in memory) when none can be made. */
function toFile(st: SpillState, spill: TextSpill): boolean {
  try {
    // (tmpdir() reads TMPDIR: a caller without env access keeps the texts in memory)
    const dir = mkdtempSync(join(st.dir ?? tmpdir(), "scout-prov-"));
    const path = join(dir, "facts");
    st.held.fd = openSync(path, "w+", 0o600);
    unlinkSync(path);
    rmdirSync(dir);
  } catch {
    return false; // no temp directory: keep the texts in memory
  }
  orphans.register(spill, st.held, spill);
  const texts = st.memory!;
  st.memory = null;
  st.count = 0;
  for (const t of texts) write(st, t);
  return true;
}

function flush(st: SpillState): void {
  let at = 0;
  while (at < st.blockUsed) {
    at += writeSync(st.held.fd, st.block, at, st.blockUsed - at, st.written + at);
  }
  st.written += st.blockUsed;
  st.blockUsed = 0;
}

function write(st: SpillState, text: string): void {
  st.offsets = grown(st.offsets, st.count + 2);
  if (text.length * 3 > st.block.length - st.blockUsed) {
    flush(st);
    const need = Math.max(text.length * 3, WRITE_BLOCK * 3 + 4);
    if (need > st.block.length) st.block = new Uint8Array(need);
  }
  const { written: bytes } = encoder.encodeInto(text, st.block.subarray(st.blockUsed));
  st.blockUsed += bytes;
  st.offsets[st.count + 1] = st.offsets[st.count]! + bytes;
  st.count++;
  if (st.blockUsed >= WRITE_BLOCK) flush(st);
}

function readText(st: SpillState, id: number): string {
  if (st.offsets[id + 1]! > st.written) flush(st);
  const at = st.offsets[id]!;
  const length = st.offsets[id + 1]! - at;
  if (st.buffer.length < length) st.buffer = Buffer.alloc(Math.max(length, st.buffer.length * 2));
  let got = 0;
  while (got < length) {
    const n = readSync(st.held.fd, st.buffer, got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return st.buffer.toString("utf8", 0, got);
}
