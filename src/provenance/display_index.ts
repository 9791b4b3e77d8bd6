/**
 * A report's display edges by node index (issue 16): the renderers walk them
 * without maps keyed by node id strings. On a big store such maps, and the id
 * strings they make whole (an id is the node's kind and path, joined lazily
 * by the engine until something reads it), held tens of MB while the tree was
 * written. `provenanceReport` keeps the indices it made beside the display
 * edges it returns; a report from elsewhere (built by hand, read back from
 * JSON, display edges replaced by a new array) gets them from its ids. An
 * edge changed in place, in the array the report came with, is not noticed:
 * a caller that edits display edges gives the report a new array.
 *
 * @module
 */
import { addChild, type ChildLists, childLists, childPairs } from "./child_lists.ts";
import { relationRank } from "./display.ts";
import type { DisplayEdge, ProvenanceReport } from "./report_types.ts";

/** Number of relation ranks ({@link relationRank}: 0–4). */
const RANKS = 5;

/** Ends kept for the display edge arrays `provenanceReport` made (weakly). */
const kept = new WeakMap<readonly DisplayEdge[], Int32Array>();

/**
 * Keeps the node indices of `edges`' ends for {@link displayEnds}.
 *
 * @param edges a report's display edges, as returned
 * @param ends `from`, `to` node index per edge
 */
export function keepDisplayEnds(edges: readonly DisplayEdge[], ends: Int32Array): void {
  kept.set(edges, ends);
}

/**
 * The node indices of each display edge's ends (`from`, `to` pairs; -1 for
 * an id that is no node of the report).
 *
 * @param report the report
 * @returns two indices per display edge
 */
export function displayEnds(report: ProvenanceReport): Int32Array {
  const edges = report.displayEdges;
  const ends = kept.get(edges);
  if (ends !== undefined && ends.length === 2 * edges.length) return ends;
  const index = new Map(Array.from(report.nodes, (n, i) => [n.id, i]));
  const out = new Int32Array(2 * edges.length);
  edges.forEach((e, k) => {
    out[2 * k] = index.get(e.from) ?? -1;
    out[2 * k + 1] = index.get(e.to) ?? -1;
  });
  return out;
}

/**
 * The index of the report's root node (the first node, in a report from
 * `provenanceReport`), or -1.
 *
 * @param report the report
 * @returns a node index
 */
export function rootIndex(report: ProvenanceReport): number {
  let i = 0;
  for (const n of report.nodes) {
    if (n.id === report.root) return i;
    i++;
  }
  return -1;
}

/**
 * The node indices of the report's roots (`roots`, else `root`), in the
 * order given: one root's as {@link rootIndex} gives it; of several, those
 * that are nodes of the report.
 *
 * @param report the report
 * @returns node indices
 */
export function rootIndices(report: ProvenanceReport): number[] {
  const ids = report.roots ?? [report.root];
  if (ids.length === 1) return [rootIndex(report)];
  const at = new Map(ids.map((id, k) => [id, k]));
  const out = new Array<number>(ids.length).fill(-1);
  let i = 0;
  for (const n of report.nodes) {
    const k = at.get(n.id);
    if (k !== undefined) out[k] = i;
    i++;
  }
  return out.filter((i) => i >= 0);
}

/** Display children by node index: each node's display edge numbers. */
export interface DisplayChildren {
  /** Node indices of each display edge's ends (see {@link displayEnds}). */
  ends: Int32Array;
  /** Per node, the numbers of its outgoing display edges, stably sorted by relation rank. */
  lists: ChildLists;
}

/**
 * Each node's display edges, in discovery order stably sorted by relation
 * rank (dependency, log, job, agent_job, result): the order the tree shows
 * a node's children in.
 *
 * @param report the report
 * @returns the ends and the per-node lists
 */
export function displayChildren(report: ProvenanceReport): DisplayChildren {
  const edges = report.displayEdges;
  const ends = displayEnds(report);
  const pairs = childPairs(); // (from node, display edge number)
  for (let k = 0; k < edges.length; k++) {
    if (ends[2 * k]! >= 0 && ends[2 * k + 1]! >= 0) addChild(pairs, ends[2 * k]!, k);
  }
  const lists = childLists(report.nodes.length, pairs);
  const rank = (k: number) => relationRank(edges[k]!.relation);
  let segment = new Int32Array(0);
  for (let v = 0; v < lists.nodes; v++) {
    const from = lists.start[v]!;
    const to = lists.start[v + 1]!;
    if (to - from < 2) continue;
    // stable by rank (five of them), in linear time: the root may have thousands of children
    if (segment.length < to - from) segment = new Int32Array(to - from);
    segment.set(lists.list.subarray(from, to));
    let at = from;
    for (let r = 0; r < RANKS; r++) {
      for (let p = 0; p < to - from; p++) {
        if (rank(segment[p]!) === r) lists.list[at++] = segment[p]!;
      }
    }
  }
  return { ends, lists };
}
