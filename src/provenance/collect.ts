/**
 * Thin collectors over one {@link traverseProvenance} run (`provenance.md`
 * §3): chat files, jobs and edges. They take the traversal's options (and so
 * its error policy: strict unless `onError` is given).
 *
 * @module
 */
import type { ReceiptJobReference } from "../chat/receipts.ts";
import type { JobRef, NodeKind, Relation, TraverseOptions } from "./types.ts";
import { traverseProvenance } from "./traverse.ts";
import { nodeId } from "./paths.ts";

/**
 * Canonical paths of the chat nodes reached from `root`, in first-visit order.
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options
 * @returns chat paths
 *
 * @example
 * ```ts ignore
 * import { provenanceChatFiles } from "./collect.ts";
 * provenanceChatFiles("session.chat", { onError: () => {} });
 * ```
 */
export function provenanceChatFiles(root: string | JobRef, o: TraverseOptions = {}): string[] {
  const out: string[] = [];
  for (const r of traverseProvenance(root, o)) {
    if (r.firstVisit && r.kind === "chat") out.push(r.node.path);
  }
  return out;
}

/**
 * The job nodes reached from `root`, in first-visit order (each once).
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options
 * @returns jobs with their info
 */
export function provenanceJobs(root: string | JobRef, o: TraverseOptions = {}): JobRef[] {
  const out: JobRef[] = [];
  for (const r of traverseProvenance(root, o)) {
    if (r.firstVisit && r.node.kind === "job") out.push(r.node);
  }
  return out;
}

/** One structural edge, in discovery direction. */
export interface ProvenanceEdge {
  /** Kind of the parent. */
  fromKind: NodeKind;
  /** Canonical path of the parent. */
  from: string;
  /** The relation. */
  relation: Relation;
  /** Kind of the child. */
  toKind: NodeKind;
  /** Canonical path of the child. */
  to: string;
  /** Whether this was the child's first record. */
  firstVisit: boolean;
  /** The receipt entry of an `agent_job` edge, else null. */
  detail: ReceiptJobReference | null;
}

/**
 * A key that identifies an edge for deduplication: relation, both node ids
 * and, for `agent_job`, the receipt entry's address (two receipts naming one
 * job stay two edges).
 *
 * @param e an edge
 * @returns the key
 */
export function edgeKey(e: Omit<ProvenanceEdge, "firstVisit">): string {
  const detail = e.detail === null ? "" : JSON.stringify(e.detail.evidenceAddress);
  return `${e.relation}\0${nodeId(e.fromKind, e.from)}\0${nodeId(e.toKind, e.to)}\0${detail}`;
}

/**
 * The edges of the provenance graph of `root`: one per non-root record,
 * without repeats of an earlier equal edge (see {@link edgeKey}).
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options
 * @returns edges in discovery order
 */
export function provenanceEdges(root: string | JobRef, o: TraverseOptions = {}): ProvenanceEdge[] {
  const out: ProvenanceEdge[] = [];
  const seen = new Set<string>();
  for (const r of traverseProvenance(root, o)) {
    if (r.parent === null || r.relation === null) continue;
    const edge: ProvenanceEdge = {
      fromKind: r.parent.kind,
      from: r.parent.path,
      relation: r.relation,
      toKind: r.kind,
      to: r.node.path,
      firstVisit: r.firstVisit,
      detail: r.detail,
    };
    const key = edgeKey(edge);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(edge);
  }
  return out;
}

/**
 * Compatibility view: for each node that leads to chat files, the chat paths
 * it reaches directly (`parent path → child chat paths`).
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef
 * @param o traversal options
 * @returns a plain record keyed by parent canonical path
 */
export function provenanceChatMap(
  root: string | JobRef,
  o: TraverseOptions = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of provenanceEdges(root, o)) {
    if (e.toKind !== "chat") continue;
    (out[e.from] ??= []).push(e.to);
  }
  return out;
}
