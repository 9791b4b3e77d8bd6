/**
 * The item sets of the subtree sums (`subtree.ts`): what each component of
 * the graph reaches, as a sorted list or a bitset, each summed once.
 *
 * @module
 */
import { K, sortedHas } from "./typed.ts";

/**
 * The items a component reaches: a sorted list of item numbers while it is
 * no bigger than a bitset over all items (most nodes reach few items: a
 * job's own logs, a few dependencies), else that bitset. Sets are shared,
 * never modified: a component with one successor and nothing of its own
 * reuses the successor's.
 */
export interface Reach {
  /** Sorted distinct items, or null when {@link Reach.bits} holds them. */
  list: Int32Array | null;
  /** One bit per item, or null for a list. */
  bits: Uint32Array | null;
  /** Where its summed weights are (see `reachSets`). */
  row: number;
}

/** Operations on {@link Reach} sets over `words * 32` items with `K` weights each. */
export function reachSets(words: number, weight: Float64Array, rows: number) {
  // each set's summed weights, K per row: a union's row is its component's; the empty set's the last
  const sums = new Float64Array((rows + 1) * K);
  const empty: Reach = { list: new Int32Array(0), bits: null, row: rows };
  const summed = (r: Reach): Reach => {
    const at = r.row * K;
    const add = (b: number) => {
      for (let k = 0; k < K; k++) sums[at + k] = sums[at + k]! + weight[b * K + k]!;
    };
    if (r.list !== null) r.list.forEach(add);
    else {
      for (let w = 0; w < words; w++) {
        let x = r.bits![w]!;
        while (x !== 0) {
          const t = x & -x;
          add((w << 5) + (31 - Math.clz32(t)));
          x ^= t;
        }
      }
    }
    return r;
  };
  return {
    empty,
    /** Own items plus everything the successors reach. */
    union(own: readonly number[], succ: ReadonlySet<Reach>, row: number): Reach {
      let size = own.length;
      let dense = false;
      for (const r of succ) {
        if (r.list === null) dense = true;
        else size += r.list.length;
      }
      if (!dense && size <= words) {
        return summed({ list: listUnion(own, succ, size), bits: null, row });
      }
      return summed({ list: null, bits: bitsUnion(own, succ, words), row });
    },
    /** Whether item `b` is in the set. */
    has(r: Reach, b: number): boolean {
      if (r.bits !== null) return (r.bits[b >> 5]! & (1 << (b & 31))) !== 0;
      return sortedHas(r.list!, b);
    },
    /** Writes the set's summed weights into `into` at `at`. */
    sumInto(r: Reach, into: Float64Array, at: number): void {
      into.set(sums.subarray(r.row * K, r.row * K + K), at);
    },
  };
}

/** The sorted distinct items of `own` and the successors' lists (`size` items in all). */
function listUnion(own: readonly number[], succ: ReadonlySet<Reach>, size: number): Int32Array {
  const all = new Int32Array(size);
  all.set(own);
  let at = own.length;
  for (const r of succ) {
    all.set(r.list!, at);
    at += r.list!.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) {
    if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i]!;
  }
  return n === all.length ? all : all.slice(0, n);
}

/** `own` and the successors' items as one bit per item (`words * 32` items). */
function bitsUnion(own: readonly number[], succ: ReadonlySet<Reach>, words: number): Uint32Array {
  const bits = new Uint32Array(words);
  const set = (b: number) => bits[b >> 5]! |= 1 << (b & 31);
  for (const r of succ) {
    if (r.bits !== null) { for (let w = 0; w < words; w++) bits[w]! |= r.bits[w]!; }
    else r.list!.forEach(set);
  }
  own.forEach(set);
  return bits;
}
