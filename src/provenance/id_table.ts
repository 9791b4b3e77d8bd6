/**
 * Identity strings → event numbers, compact for the common case (issue 16).
 * Inference ids are UUIDs (`randomUUID`, 36 characters): a string key costs
 * about 100 bytes with its map entry, so a store's identity maps were among
 * the largest things a report kept. Lower-case UUIDs are kept as their 128
 * bits in an open-addressing table of typed arrays (about 40 bytes each at
 * worst load); any other string goes in a `Map`. The packing is exact (a
 * string is a key of the table only when it is a lower-case UUID, and two
 * such strings with the same bits are equal), so lookups never confuse two
 * identities.
 *
 * @module
 */
import { fresh } from "./file_evidence.ts";

/** Hex digit value of a lower-case hex character code, else -1. */
function hex(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/**
 * The four 32-bit words of a lower-case UUID into `out` (at `at`); false
 * when `s` is not one.
 *
 * @param s a string
 * @param out where the words go
 * @param at index of the first word in `out`
 * @returns whether `s` is a lower-case UUID
 */
export function uuidWords(s: string, out: Uint32Array, at = 0): boolean {
  if (s.length !== 36) return false;
  let w = 0;
  let bits = 0;
  let word = 0;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
      continue;
    }
    const v = hex(c);
    if (v < 0) return false;
    word = (word << 4) | v;
    bits += 4;
    if (bits === 32) {
      out[at + w++] = word >>> 0;
      word = 0;
      bits = 0;
    }
  }
  return true;
}

/** A map from identity strings to non-negative numbers. */
export interface IdTable {
  /** The number of `key`, or -1. */
  get(key: string): number;
  /** Sets the number of `key` (a key not in the table yet). */
  add(key: string, value: number): void;
  /** The number of the UUID whose {@link uuidWords} are `w[at…at+4)`, or -1. */
  getWords(w: Uint32Array, at: number): number;
  /** Sets the number of the UUID whose words are `w[at…at+4)` (not in the table yet). */
  addWords(w: Uint32Array, at: number, value: number): void;
  /** Number of keys. */
  readonly size: number;
}

/**
 * An empty table.
 *
 * @returns the table
 */
export function idTable(): IdTable {
  let capacity = 1024; // a power of two
  let words = new Uint32Array(capacity * 4);
  let values = new Int32Array(capacity).fill(-1);
  let used = 0;
  const other = new Map<string, number>();
  const probe = new Uint32Array(4);

  const slot = (w: Uint32Array, ws: Uint32Array, cap: number, vs: Int32Array): number => {
    let h = Math.imul(
      w[0]! ^ Math.imul(w[1]!, 0x9e3779b1) ^ Math.imul(w[2]!, 0x85ebca6b) ^ w[3]!,
      0xc2b2ae35,
    );
    h = (h ^ (h >>> 15)) & (cap - 1);
    for (;;) {
      if (vs[h] === -1) return h;
      const at = h * 4;
      if (ws[at] === w[0] && ws[at + 1] === w[1] && ws[at + 2] === w[2] && ws[at + 3] === w[3]) {
        return h;
      }
      h = (h + 1) & (cap - 1);
    }
  };
  const grow = () => {
    const oldWords = words;
    const oldValues = values;
    capacity *= 2;
    words = new Uint32Array(capacity * 4);
    values = new Int32Array(capacity).fill(-1);
    const w = new Uint32Array(4);
    for (let i = 0; i < oldValues.length; i++) {
      if (oldValues[i] === -1) continue;
      w.set(oldWords.subarray(i * 4, i * 4 + 4));
      const h = slot(w, words, capacity, values);
      words.set(w, h * 4);
      values[h] = oldValues[i]!;
    }
  };
  const copyWords = (w: Uint32Array, at: number) => {
    probe[0] = w[at]!;
    probe[1] = w[at + 1]!;
    probe[2] = w[at + 2]!;
    probe[3] = w[at + 3]!;
  };
  const addProbe = (value: number) => {
    if ((used + 1) * 2 > capacity) grow();
    const h = slot(probe, words, capacity, values);
    words.set(probe, h * 4);
    values[h] = value;
    used++;
  };
  return {
    get(key) {
      if (!uuidWords(key, probe)) return other.get(key) ?? -1;
      return values[slot(probe, words, capacity, values)]!;
    },
    add(key, value) {
      if (!uuidWords(key, probe)) {
        other.set(fresh(key), value); // not a slice pinning a chat's text
        return;
      }
      addProbe(value);
    },
    getWords(w, at) {
      copyWords(w, at);
      return values[slot(probe, words, capacity, values)]!;
    },
    addWords(w, at, value) {
      copyWords(w, at);
      addProbe(value);
    },
    get size() {
      return used + other.size;
    },
  };
}
