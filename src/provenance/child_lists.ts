/**
 * The children of every node of a walked graph as one list (issue 16): the
 * walk records each (parent, child) pair as it goes, in two typed columns,
 * and {@link childLists} turns them into per-node ranges of one array. A
 * JS array per node (120,000 on a 2 GB store) cost ~9 MB for the whole
 * report; these cost 4 bytes a record and a node.
 *
 * @module
 */
import { grown } from "./typed.ts";

/** Children per node: node `v`'s are `list[start[v]…start[v+1])`, in record order. */
export interface ChildLists {
  /** Number of nodes. */
  readonly nodes: number;
  /** Where each node's children start in `list` (`nodes + 1` entries). */
  readonly start: Int32Array;
  /** Every node's children, node after node. */
  readonly list: Int32Array;
}

/** (parent, child) pairs in record order: what {@link childLists} is made from. */
export interface ChildPairs {
  /** Number of pairs. */
  count: number;
  /** Parent, child, parent, child… (grown ahead of need). */
  pairs: Int32Array;
}

/**
 * An empty pair list.
 *
 * @returns the list
 */
export function childPairs(): ChildPairs {
  return { count: 0, pairs: new Int32Array(1024) };
}

/**
 * Records that `child` is a child of `parent` (repeats allowed).
 *
 * @param c the pairs
 * @param parent parent node
 * @param child child node
 */
export function addChild(c: ChildPairs, parent: number, child: number): void {
  const k = c.count++;
  c.pairs = grown(c.pairs, 2 * k + 2);
  c.pairs[2 * k] = parent;
  c.pairs[2 * k + 1] = child;
}

/**
 * The children of nodes `0…nodes-1`, each node's in the order its pairs
 * were added.
 *
 * @param nodes number of nodes
 * @param c the pairs
 * @returns the lists
 */
export function childLists(nodes: number, c: ChildPairs): ChildLists {
  return bucketLists(nodes, c.count, (k) => c.pairs[2 * k]!, (k) => c.pairs[2 * k + 1]!);
}

/**
 * Items grouped by bucket, each bucket's in item order (a counting sort):
 * item `i` goes to bucket `bucketOf(i)` as `valueOf(i)`. What
 * {@link childLists} does with pairs, and the subtree sums with the nodes
 * of each strongly connected component.
 *
 * @param buckets number of buckets (`0…buckets-1`)
 * @param items number of items (`0…items-1`)
 * @param bucketOf each item's bucket
 * @param valueOf what each item puts in its bucket
 * @returns the buckets as ranges of one list (`nodes` is the number of buckets)
 */
export function bucketLists(
  buckets: number,
  items: number,
  bucketOf: (item: number) => number,
  valueOf: (item: number) => number,
): ChildLists {
  const start = new Int32Array(buckets + 1);
  for (let i = 0; i < items; i++) start[bucketOf(i) + 1]!++;
  for (let b = 0; b < buckets; b++) start[b + 1]! += start[b]!;
  const at = start.slice(0, buckets);
  const list = new Int32Array(items);
  for (let i = 0; i < items; i++) list[at[bucketOf(i)]!++] = valueOf(i);
  return { nodes: buckets, start, list };
}
