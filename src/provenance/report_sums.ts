/**
 * The report's sums (`provenance.md` §10.2): each node's direct and subtree
 * tokens, and with prices what they cost — per node, per inference and for
 * every inference once (all the roots together, R134-1). Over the one walk's
 * graph and event table; nothing is read again.
 *
 * @module
 */
import type { TokenTotals } from "../chat/trace.ts";
import { type SubtreeEvents, type SubtreeGraph, subtreeSums } from "./subtree.ts";
import type { ChatStore } from "./chat_store.ts";
import { compactTokens, type TokenColumn } from "./typed.ts";
import { addChild, childLists, childPairs } from "./child_lists.ts";
import type { ChatEvidence, WalkedGraph } from "./report_walk.ts";
import { collectIfGrown } from "../util/gc.ts";
import { costOf, type PriceTable } from "./prices.ts";
import type { NodeCost, ReportOptions } from "./report_types.ts";

/** The chats whose metas are node `i`'s own: a chat itself, a job's log chats (read ones). */
function ownChats(g: WalkedGraph, store: ChatStore, i: number): number[] {
  const seqs: number[] = [];
  for (const c of g.refs[i]!.kind === "chat" ? [i] : g.logsOf.get(i) ?? []) {
    const seq = store.seqOf(g.refs[c]!.path);
    if (seq !== undefined) seqs.push(seq);
  }
  return seqs;
}

/** Per node: its cost, direct and over its subtree. */
export type NodeCosts = { direct: NodeCost; subtree: NodeCost }[];

/** What the walk's inferences cost (with prices). */
export interface WalkCosts {
  /** Per node: direct and subtree. */
  nodes: NodeCosts;
  /** Per event (table order): its canonical copy's dollars, NaN when its model has no price. */
  events: Float64Array;
  /** Every event once: what all the roots cost together. */
  all: NodeCost;
}

/**
 * Each node's cost (with prices): direct as its tokens are counted, subtree
 * over the same reachability as its subtree tokens. An event whose copies
 * disagree costs its canonical copy's tokens everywhere (its tokens are
 * resolved per node; such totals are flagged not authoritative anyway).
 */
function nodeCosts(
  g: WalkedGraph,
  chats: ChatEvidence,
  graph: SubtreeGraph,
  eventNodes: SubtreeEvents["nodes"],
  prices: PriceTable,
): WalkCosts {
  const { store, table } = chats;
  const cost = (e: number, t: TokenTotals) => costOf(t, table.names(e), prices);
  const canonical = Float64Array.from(
    { length: table.count() },
    (_, e) => cost(e, table.tokensOf(e)) ?? NaN,
  );
  // the subtree machinery over three weights: dollars, unpriced and priced inferences
  const sums = subtreeSums(graph, {
    count: table.count,
    addTokensTo(into, at, e) {
      const c = canonical[e]!;
      if (Number.isNaN(c)) into[at + 1]! += 1;
      else {
        into[at]! += c;
        into[at + 2]! += 1;
      }
    },
    uniform: () => true,
    event: table.event,
    nodes: eventNodes,
  });
  const nodes = g.refs.map((_, i) => ({
    direct: table.localCost(ownChats(g, store, i), cost),
    subtree: { dollars: sums[6 * i]!, unpriced: sums[6 * i + 1]!, priced: sums[6 * i + 2]! },
  }));
  return { nodes, events: canonical, all: allCost(canonical) };
}

/** Every event once: dollars of the priced ones, how many have no price and how many one. */
function allCost(events: Float64Array): NodeCost {
  const all: NodeCost = { dollars: 0, unpriced: 0, priced: 0 };
  for (const c of events) {
    if (Number.isNaN(c)) all.unpriced++;
    else {
      all.dollars += c;
      all.priced++;
    }
  }
  return all;
}

/**
 * Subtree tokens (and costs, with prices) of every node. A nested society's
 * log counts (and shows) under its caller's log too. What only these sums
 * need (the children lists, the file index) is let go when they are done:
 * on a big store it would otherwise live on while the nodes are made.
 */
export function nodeSums(
  g: WalkedGraph,
  chats: ChatEvidence,
  callers: ReadonlyMap<number, number>,
  o: ReportOptions,
): { subtree: TokenColumn; costs: WalkCosts | null } {
  const { store, table } = chats;
  for (const [nested, caller] of callers) addChild(g.children, caller, nested);
  const children = childLists(g.refs.length, g.children);
  g.children = childPairs();
  const seqNode = new Int32Array(store.count).fill(-1);
  g.refs.forEach((n, i) => {
    if (n.kind !== "chat") return;
    const seq = store.seqOf(n.path);
    if (seq !== undefined) seqNode[seq] = i;
  });
  // only events whose copies disagree (rare) look chats up by path: made when first asked
  let byPath: Map<string, number> | null = null;
  const fileNode = (path: string): number | undefined => {
    if (byPath === null) {
      byPath = new Map();
      g.refs.forEach((n, i) => n.kind === "chat" && byPath!.set(n.path, i));
    }
    return byPath.get(path);
  };
  o.onPhase?.("callers");
  collectIfGrown();
  // an event's copies, as the nodes of the chats they are in (-1: a chat not in the graph)
  const eventNodes = (e: number, out: number[]) => {
    table.files(e, out);
    for (let k = 0; k < out.length; k++) out[k] = seqNode[out[k]!]!;
    return out;
  };
  const sums = subtreeSums({ children, fileNode }, {
    count: table.count,
    addTokensTo: table.addTokensTo,
    uniform: table.uniform,
    event: table.event,
    nodes: eventNodes,
  });
  const costs = o.prices === undefined
    ? null
    : nodeCosts(g, chats, { children, fileNode }, eventNodes, o.prices);
  return { subtree: compactTokens(sums, sums.length), costs };
}

/** Six direct token values per node (a chat's own metas, a job's logs'), in a column. */
export function directColumn(g: WalkedGraph, chats: ChatEvidence): TokenColumn {
  const out = new Float64Array(6 * g.refs.length);
  for (let i = 0; i < g.refs.length; i++) {
    if ((i & 4095) === 4095) collectIfGrown(); // the token sums made per node
    chats.table.addLocalSums(ownChats(g, chats.store, i), out, 6 * i);
  }
  return compactTokens(out, out.length);
}
