/**
 * Subtree token totals for every node at once (`provenance.md` §10.2): the
 * totals `provenanceTokenTotals(node as root)` would give, computed from the
 * global graph instead of one traversal per node.
 *
 * Each event counts once for a node if any file holding its evidence is
 * reachable. Events whose copies agree on all token values are folded into
 * weights: per file when all copies sit in one file, else per distinct set
 * of files. Reachable weights are bitsets over those items, propagated over
 * the strongly connected components of the graph (cycles are normal: a
 * result chat points back at its job). The rare events whose copies
 * disagree are resolved per node with the canonical-evidence rule, in that
 * node's own discovery order.
 *
 * @module
 */
import { TOKEN_KEYS } from "../chat/meta.ts";
import { emptyTokens, metaTokens, type TokenTotals } from "../chat/trace.ts";
import type { EvidenceItem, TokenEvent } from "./evidence.ts";
import { components } from "./components.ts";
import { bucketLists, type ChildLists } from "./child_lists.ts";
import { K, sortDistinct } from "./typed.ts";
import { type Reach, reachSets } from "./reach_sets.ts";
import { collectIfGrown } from "../util/gc.ts";

/** The graph as traversed: every record's edge, in expansion order. */
export interface SubtreeGraph {
  /** Per node index: its children (repeats allowed), in expansion order. */
  children: ChildLists;
  /** Canonical chat path → node index (where evidence lives). */
  fileNode: (path: string) => number | undefined;
}

function sameTokens(a: TokenTotals, b: TokenTotals): boolean {
  for (const k of TOKEN_KEYS) if (a[k] !== b[k]) return false;
  return true;
}

interface Special {
  event: TokenEvent;
  files: number[];
  items: { item: EvidenceItem; node: number; tokens: TokenTotals; order: number }[];
}

/** BFS order of chat files from `start` (the traversal's first-visit order). */
function fileOrder(start: number, children: ChildLists): Map<number, number> {
  const seen = new Uint8Array(children.nodes);
  const order = new Map<number, number>();
  const queue = [start];
  seen[start] = 1;
  for (let h = 0; h < queue.length; h++) {
    const v = queue[h]!;
    order.set(v, h);
    for (let k = children.start[v]!; k < children.start[v + 1]!; k++) {
      const w = children.list[k]!;
      if (seen[w] === 0) {
        seen[w] = 1;
        queue.push(w);
      }
    }
  }
  return order;
}

/** Events folded into weights: per file, per set of files, and the disputed ones. */
interface Folded {
  /** Per node: the summed tokens of the events whose copies all sit in it (K values per node). */
  fileWeight: Float64Array;
  /** Per node: 1 when it has a weight. */
  weighted: Uint8Array;
  /** Events whose agreeing copies sit in several files, one group per file set (first seen first). */
  groups: { files: number[]; weight: Float64Array }[];
  /** Events whose copies disagree on some token value. */
  specials: Special[];
}

/** What the subtree sums need of the root's events (`event_table.ts`). */
export interface SubtreeEvents {
  /** Number of events. */
  count(): number;
  /** Adds event `e`'s canonical tokens into `into[at…at+K)`. */
  addTokensTo(into: Float64Array, at: number, e: number): void;
  /** The node of each copy of `e` (-1: not a node of the graph), in copy order. */
  nodes(e: number, out: number[]): number[];
  /** Whether all copies of `e` agree on every token value. */
  uniform(e: number): boolean;
  /** Event `e`'s full record (asked for only when its copies disagree). */
  event(e: number): TokenEvent;
}

/** A hash of a list of numbers (to find a file set's group without a key string per event). */
function listHash(xs: readonly number[]): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < xs.length; i++) h = Math.imul(h ^ xs[i]!, 0x01000193);
  return h;
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The nodes of `e`'s copies that are in the graph, distinct and ascending (`into` is reused). */
function eventFiles(events: SubtreeEvents, e: number, into: number[]): number[] {
  const nodes = events.nodes(e, into);
  let n = 0;
  for (let i = 0; i < nodes.length; i++) if (nodes[i]! >= 0) nodes[n++] = nodes[i]!;
  nodes.length = n;
  if (n > 1) nodes.length = sortDistinct(nodes);
  return nodes;
}

/**
 * Folds the events into weights (token counts are integers, so sums are
 * exact in any order). Per event it makes nothing that outlives it but a
 * new file set's group: a 2 GB store has ~480,000 events.
 */
function foldEvents(
  events: SubtreeEvents,
  fileNode: SubtreeGraph["fileNode"],
  n: number,
): Folded {
  const fileWeight = new Float64Array(n * K);
  const weighted = new Uint8Array(n);
  const groups: Folded["groups"] = [];
  const byHash = new Map<number, number[]>(); // file set hash → its groups
  const specials: Special[] = [];
  const copies: number[] = [];

  for (let e = 0; e < events.count(); e++) {
    if ((e & 16383) === 16383) collectIfGrown(); // the event records rebuilt
    const files = eventFiles(events, e, copies);
    if (files.length === 0) continue;
    if (!events.uniform(e)) {
      // The copies disagree on some token value (rare): each copy counts where it is.
      const event = events.event(e);
      const items = event.evidence.map((item, order) => ({
        item,
        node: fileNode(item.source) ?? -1,
        tokens: metaTokens(item.meta),
        order,
      })).filter((x) => x.node >= 0);
      specials.push({ event, files: [...files], items });
    } else if (files.length === 1) {
      events.addTokensTo(fileWeight, files[0]! * K, e);
      weighted[files[0]!] = 1;
    } else {
      const h = listHash(files);
      const same = byHash.get(h) ?? byHash.set(h, []).get(h)!;
      let g: number | undefined;
      for (const i of same) if (sameList(groups[i]!.files, files)) g = i;
      if (g === undefined) {
        g = groups.push({ files: [...files], weight: new Float64Array(K) }) - 1;
        same.push(g);
      }
      events.addTokensTo(groups[g]!.weight, 0, e);
    }
  }

  return { fileWeight, weighted, groups, specials };
}

/** The items reachability is computed over, with their weights. */
interface Items {
  /** Per node: the items it holds. */
  own: ChildLists;
  /** K weights per item. */
  weight: Float64Array;
  /** 32-bit words of a bitset over all items. */
  words: number;
  /** Node → its file item (weighted files and files with disputed evidence). */
  fileBit: Map<number, number>;
}

/** One item per weighted file (or file holding disputed evidence), one per group. */
function weightItems(n: number, folded: Folded): Items {
  const { fileWeight, weighted, groups, specials } = folded;
  const ownNode: number[] = []; // (node, item) pairs: the lists are made at the end
  const ownItem: number[] = [];
  const weights: number[] = [];
  const fileBit = new Map<number, number>();
  const addBit = (w: Float64Array | null, at = 0) => {
    for (let k = 0; k < K; k++) weights.push(w === null ? 0 : w[at + k]!);
    return weights.length / K - 1;
  };
  const bitOfFile = (f: number, w: Float64Array | null) => {
    let b = fileBit.get(f);
    if (b === undefined) {
      b = addBit(w, f * K);
      fileBit.set(f, b);
      ownNode.push(f);
      ownItem.push(b);
    }
    return b;
  };
  for (let f = 0; f < n; f++) if (weighted[f] === 1) bitOfFile(f, fileWeight);
  for (const s of specials) for (const f of s.files) bitOfFile(f, null);
  for (const g of groups) {
    const b = addBit(g.weight);
    for (const f of g.files) {
      ownNode.push(f);
      ownItem.push(b);
    }
  }
  const own = bucketLists(n, ownNode.length, (i) => ownNode[i]!, (i) => ownItem[i]!);
  const bitCount = weights.length / K;
  const words = Math.max(1, Math.ceil(bitCount / 32));
  const weight = Float64Array.from(weights);

  return { own, weight, words, fileBit };
}

/**
 * Subtree totals of every node: what `provenanceTokenTotals` (deduplicated
 * total) would return with that node as the root and full follow.
 *
 * @param graph children per node and where each chat file is
 * @param events the root's events (their evidence covers every file)
 * @returns per node index, its six token values (`TOKEN_KEYS` order) at `6 * index`
 */
export function subtreeSums(graph: SubtreeGraph, events: SubtreeEvents): Float64Array {
  const { children, fileNode } = graph;
  const n = children.nodes;
  const folded = foldEvents(events, fileNode, n);
  const { own, weight, words, fileBit } = weightItems(n, folded);
  const specials = folded.specials;

  const { comp, count } = components(children);
  const members = bucketLists(count, n, (v) => comp[v]!, (v) => v); // each component's nodes

  // cross edges into each component: its reach is let go once its last one is read
  const pending = new Int32Array(count);
  for (let v = 0; v < n; v++) {
    for (let k = children.start[v]!; k < children.start[v + 1]!; k++) {
      const w = children.list[k]!;
      if (comp[w] !== comp[v]) pending[comp[w]!]!++;
    }
  }
  const reaches = reachSets(words, weight, count);
  const reachOf: (Reach | null)[] = new Array(count);
  const ownItems: number[] = []; // reused: union copies what it keeps
  const succ = new Set<Reach>();
  const out = new Float64Array(n * K);
  for (let c = 0; c < count; c++) {
    ownItems.length = 0;
    succ.clear();
    for (let m = members.start[c]!; m < members.start[c + 1]!; m++) {
      const v = members.list[m]!;
      for (let i = own.start[v]!; i < own.start[v + 1]!; i++) ownItems.push(own.list[i]!);
      for (let k = children.start[v]!; k < children.start[v + 1]!; k++) {
        const w = children.list[k]!;
        if (comp[w] !== c) succ.add(reachOf[comp[w]!]!);
      }
    }
    succ.delete(reaches.empty);
    const reach = ownItems.length === 0 && succ.size <= 1
      ? (succ.size === 0 ? reaches.empty : succ.values().next().value!)
      : reaches.union(ownItems, succ, c);
    for (let m = members.start[c]!; m < members.start[c + 1]!; m++) {
      const v = members.list[m]!;
      reaches.sumInto(reach, out, v * K);
      if (specials.length > 0) addSpecials(out, v, reach, reaches, specials, fileBit, children);
      for (let k = children.start[v]!; k < children.start[v + 1]!; k++) {
        const w = comp[children.list[k]!]!;
        if (w !== c && --pending[w]! === 0) reachOf[w] = null;
      }
    }
    if (pending[c] !== 0) reachOf[c] = reach;
  }
  return out;
}

/** Node `v`'s tokens in `out` plus what the events whose copies disagree add to them. */
function addSpecials(
  out: Float64Array,
  v: number,
  reach: Reach,
  reaches: ReturnType<typeof reachSets>,
  specials: readonly Special[],
  fileBit: ReadonlyMap<number, number>,
  children: ChildLists,
): void {
  const t = emptyTokens();
  TOKEN_KEYS.forEach((k, i) => t[k] = out[v * K + i]!);
  const has = (item: number) => reaches.has(reach, item);
  for (const sp of specials) addSpecial(t, sp, v, has, fileBit, children);
  TOKEN_KEYS.forEach((k, i) => out[v * K + i] = t[k]);
}

function addSpecial(
  t: TokenTotals,
  sp: Special,
  root: number,
  reaches: (item: number) => boolean,
  fileBit: ReadonlyMap<number, number>,
  children: ChildLists,
): void {
  const reachable = sp.items.filter((x) => reaches(fileBit.get(x.node)!));
  if (reachable.length === 0) return;
  const chat = reachable.filter((x) => x.item.origin === "chat_meta");
  const candidates = chat.length > 0 ? chat : reachable;
  let canonical = candidates[0]!;
  if (!candidates.every((x) => sameTokens(x.tokens, canonical.tokens))) {
    const order = fileOrder(root, children);
    canonical = candidates.reduce((best, x) => {
      const a = order.get(x.node)! - order.get(best.node)!;
      return a < 0 || (a === 0 && x.order < best.order) ? x : best;
    });
  }
  for (const k of TOKEN_KEYS) t[k] += canonical.tokens[k];
}
