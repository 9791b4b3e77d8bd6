/**
 * Identity strings → event numbers, compact for the common case (issue 16).
 * Inference ids are UUIDs (`randomUUID`, 36 characters): a string key costs
 * about 100 bytes with its map entry, so a store's identity maps were among
 * the largest things a report kept. Lower-case UUIDs are kept as their 128
 * bits in typed arrays (about 30 bytes each: {@link idTable}); any other
 * string goes in a `Map`. The packing is exact (a
 * string is a key of the table only when it is a lower-case UUID, and two
 * such strings with the same bits are equal), so lookups never confuse two
 * identities.
 *
 * @module
 */
import { fresh } from "./file_evidence.ts";
import { grown } from "./typed.ts";

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
 * An empty table. Lower-case UUIDs are kept densely, in the order they came
 * (four words and a value each: 20 bytes, grown by half), and found through
 * an open-addressing index of key numbers (4 bytes a slot, at most half
 * full): about 30 bytes a key, against 40 for words and values in the slots
 * themselves, and a growth that copies no words.
 *
 * @returns the table
 */
export function idTable(): IdTable {
  const t: Ids = {
    slots: new Int32Array(1024).fill(-1),
    keyWords: new Uint32Array(256 * 4),
    keyValues: new Int32Array(256),
    used: 0,
    other: new Map(),
    probe: new Uint32Array(4),
  };
  return {
    get(key) {
      if (!uuidWords(key, t.probe)) return t.other.get(key) ?? -1;
      return valueOfProbe(t);
    },
    add(key, value) {
      if (!uuidWords(key, t.probe)) {
        t.other.set(fresh(key), value); // not a slice pinning a chat's text
        return;
      }
      addProbe(t, value);
    },
    getWords(w, at) {
      copyWords(t.probe, w, at);
      return valueOfProbe(t);
    },
    addWords(w, at, value) {
      copyWords(t.probe, w, at);
      addProbe(t, value);
    },
    get size() {
      return t.used + t.other.size;
    },
  };
}

/** An {@link idTable}'s state. */
interface Ids {
  /** Key number per slot; a power of two long. */
  slots: Int32Array;
  /** Four words per UUID key, in the order they came. */
  keyWords: Uint32Array;
  keyValues: Int32Array;
  used: number;
  /** Keys that are no lower-case UUID. */
  readonly other: Map<string, number>;
  /** The words looked up or added now. */
  readonly probe: Uint32Array;
}

function hash(w: Uint32Array, at: number): number {
  const h = Math.imul(
    w[at]! ^ Math.imul(w[at + 1]!, 0x9e3779b1) ^ Math.imul(w[at + 2]!, 0x85ebca6b) ^ w[at + 3]!,
    0xc2b2ae35,
  );
  return h ^ (h >>> 15);
}

/** The slot of the probe's words: the one holding them, or the empty one they would go in. */
function slot(t: Ids): number {
  const { slots, keyWords, probe } = t;
  const mask = slots.length - 1;
  for (let h = hash(probe, 0) & mask;; h = (h + 1) & mask) {
    const k = slots[h]!;
    if (k === -1) return h;
    const at = k * 4;
    if (
      keyWords[at] === probe[0] && keyWords[at + 1] === probe[1] &&
      keyWords[at + 2] === probe[2] && keyWords[at + 3] === probe[3]
    ) return h;
  }
}

function grow(t: Ids): void {
  const slots = new Int32Array(t.slots.length * 2).fill(-1);
  const mask = slots.length - 1;
  for (let k = 0; k < t.used; k++) {
    let h = hash(t.keyWords, k * 4) & mask;
    while (slots[h] !== -1) h = (h + 1) & mask;
    slots[h] = k;
  }
  t.slots = slots;
}

function copyWords(probe: Uint32Array, w: Uint32Array, at: number): void {
  probe[0] = w[at]!;
  probe[1] = w[at + 1]!;
  probe[2] = w[at + 2]!;
  probe[3] = w[at + 3]!;
}

function valueOfProbe(t: Ids): number {
  const k = t.slots[slot(t)]!;
  return k === -1 ? -1 : t.keyValues[k]!;
}

function addProbe(t: Ids, value: number): void {
  if ((t.used + 1) * 2 > t.slots.length) grow(t);
  t.keyWords = grown(t.keyWords, (t.used + 1) * 4);
  t.keyValues = grown(t.keyValues, t.used + 1);
  t.keyWords.set(t.probe, t.used * 4);
  t.keyValues[t.used] = value;
  t.slots[slot(t)] = t.used++;
}
