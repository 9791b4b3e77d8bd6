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
  const start = new Int32Array(nodes + 1);
  for (let k = 0; k < c.count; k++) start[c.pairs[2 * k]! + 1]!++;
  for (let v = 0; v < nodes; v++) start[v + 1]! += start[v]!;
  const at = start.slice(0, nodes);
  const list = new Int32Array(c.count);
  for (let k = 0; k < c.count; k++) list[at[c.pairs[2 * k]!]!++] = c.pairs[2 * k + 1]!;
  return { nodes, start, list };
}
