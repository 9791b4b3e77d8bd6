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
  const spillAt = o.spillAt ?? SPILL_AT;
  let memory: string[] | null = [];
  let memoryChars = 0;
  const held = { fd: -1 };
  let offsets = new Float64Array(1024); // byte offset of text i; offsets[count] is the end
  let count = 0;
  let buffer = Buffer.alloc(1 << 16);

  const toFile = (): boolean => {
    try {
      const dir = mkdtempSync(join(o.dir ?? tmpdir(), "scout-prov-"));
      const path = join(dir, "facts");
      held.fd = openSync(path, "w+", 0o600);
      unlinkSync(path);
      rmdirSync(dir);
    } catch {
      return false; // no temp directory: keep the texts in memory
    }
    orphans.register(spill, held, spill);
    const texts = memory!;
    memory = null;
    count = 0;
    for (const t of texts) write(t);
    return true;
  };
  // Texts not written yet, encoded into one block and written together.
  let block = new Uint8Array(0); // made when the texts move to the file
  let blockUsed = 0;
  let written = 0; // bytes in the file
  const flush = () => {
    let at = 0;
    while (at < blockUsed) at += writeSync(held.fd, block, at, blockUsed - at, written + at);
    written += blockUsed;
    blockUsed = 0;
  };
  const write = (text: string) => {
    offsets = grown(offsets, count + 2);
    if (text.length * 3 > block.length - blockUsed) {
      flush();
      const need = Math.max(text.length * 3, WRITE_BLOCK * 3 + 4);
      if (need > block.length) block = new Uint8Array(need);
    }
    const { written: bytes } = encoder.encodeInto(text, block.subarray(blockUsed));
    blockUsed += bytes;
    offsets[count + 1] = offsets[count]! + bytes;
    count++;
    if (blockUsed >= WRITE_BLOCK) flush();
  };
  const spill: TextSpill = {
    add(text) {
      if (memory !== null) {
        memory.push(text);
        memoryChars += text.length;
        if (memoryChars > spillAt && toFile()) return count - 1;
        return memory.length - 1;
      }
      write(text);
      return count - 1;
    },
    get(id) {
      if (memory !== null) return memory[id]!;
      if (offsets[id + 1]! > written) flush();
      const at = offsets[id]!;
      const length = offsets[id + 1]! - at;
      if (buffer.length < length) buffer = Buffer.alloc(Math.max(length, buffer.length * 2));
      let got = 0;
      while (got < length) {
        const n = readSync(held.fd, buffer, got, length - got, at + got);
        if (n === 0) break;
        got += n;
      }
      return buffer.toString("utf8", 0, got);
    },
    close() {
      memory = [];
      if (held.fd !== -1) {
        orphans.unregister(spill);
        try {
          closeSync(held.fd);
        } catch { /* already closed */ }
        held.fd = -1;
      }
    },
  };
  return spill;
}
