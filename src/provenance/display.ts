/**
 * Display edges of the `prov` report (`provenance.md` §10.2): the discovery
 * edges with hidden nodes folded into their owners, as the tree, flow and
 * DOT renderers draw them.
 *
 * @module
 */
import type { Relation } from "./types.ts";
import type { DisplayEdge, ReportEdge } from "./report_types.ts";
import { fitted } from "./typed.ts";

const RANK: Record<Relation, number> = {
  dependency: 0,
  log: 1,
  job: 2,
  agent_job: 3,
  result: 4,
  attempt: 5,
};

const RELATION_COUNT = Object.keys(RANK).length;

/**
 * Sort rank of a relation among a node's displayed children: dependency,
 * log, job, agent_job, result, attempt (a job's earlier runs last).
 *
 * @param r a relation
 * @returns 0–5
 */
export function relationRank(r: Relation): number {
  return RANK[r];
}

/**
 * Display edges: edges into hidden nodes dropped, edges out of a hidden node
 * re-parented to its owner, the `log` edge of a nested society's log drawn
 * from its caller's log, self-loops dropped, `(from, to, relation)`
 * deduplicated, discovery order kept. Works on node indices (no lookups or
 * keys by id strings).
 *
 * @param edges discovery edges
 * @param ends node indices of each edge (`from`, `to` pairs)
 * @param nodes report nodes, by index
 * @param ownerOf the owner of each hidden node, else -1
 * @param callers nested society log index → its caller's log index
 * @returns the display edges, and the node indices of their ends (`from`,
 *   `to` pairs: what the renderers walk, see `display_index.ts`)
 */
export function displayEdges(
  edges: readonly ReportEdge[],
  ends: ArrayLike<number>,
  nodes: { ids: readonly string[]; hidden: ArrayLike<number> },
  ownerOf: (node: number) => number,
  callers: ReadonlyMap<number, number> = new Map(),
): { edges: DisplayEdge[]; ends: Int32Array } {
  const out: DisplayEdge[] = [];
  let outEnds = new Int32Array(2 * edges.length);
  const seen = new Set<number>();
  const n = nodes.ids.length;
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k]!;
    const to = ends[2 * k + 1]!;
    if (nodes.hidden[to] !== 0) continue;
    const caller = e.relation === "log" ? callers.get(to) : undefined;
    const owner = ownerOf(ends[2 * k]!);
    const from = caller ?? (owner === -1 ? ends[2 * k]! : owner);
    if (from === to) continue;
    const key = (from * n + to) * RELATION_COUNT + RANK[e.relation]; // (from, to, relation), as one number
    if (seen.has(key)) continue;
    seen.add(key);
    outEnds[2 * out.length] = from;
    outEnds[2 * out.length + 1] = to;
    out.push({ from: nodes.ids[from]!, to: e.to, relation: e.relation });
  }
  outEnds = fitted(outEnds, 2 * out.length);
  return { edges: out, ends: outEnds };
}
