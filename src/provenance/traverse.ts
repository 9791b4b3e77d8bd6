/**
 * The one traversal primitive (`provenance.md` §2): a breadth-first walk over
 * chat files and jobs that yields every edge it follows, with `firstVisit` on
 * the first record of each node. It reads files and never runs anything:
 * chats are parsed, never compiled (no imports, tasks, files or tools).
 *
 * @module
 */
import { isReadableFile } from "../util/path_kind.ts";
import { ScoutError } from "../errors.ts";
import { loadRawSync } from "../chat/load.ts";
import type { Message } from "../chat/types.ts";
import type { ChatFacts } from "./chat_facts.ts";
import { type ChatReader, chatReader } from "./facts_pool.ts";
import {
  type JobRef,
  type NodeKind,
  type NodeRef,
  type OnError,
  PROVENANCE_RELATIONS,
  type ProvenanceRoots,
  type Relation,
  type TraversalRecord,
  type TraverseOptions,
} from "./types.ts";
import { canonicalPath } from "./paths.ts";
import type { provenanceError } from "./errors.ts";
import {
  defaultJobRoots,
  insideJobRoots,
  jobExists,
  readJobNodeInfo,
  resolveJobNode,
  withOwnStoreRoot,
} from "./jobs.ts";
import { expandChat, expandJob, type Pending } from "./expand.ts";

/**
 * Normalizes `follow` to a set of relations.
 *
 * @param follow `all`, one relation or a list
 * @returns the relations to expand
 * @throws ScoutError `invalid_follow` for an unknown name
 */
export function followSet(follow: TraverseOptions["follow"] = "all"): Set<Relation> {
  if (follow === "all") return new Set(PROVENANCE_RELATIONS);
  const list = typeof follow === "string" ? [follow] : [...follow];
  for (const r of list) {
    if (!PROVENANCE_RELATIONS.includes(r as Relation)) {
      throw new ScoutError(
        "invalid_follow",
        `Unknown relation "${String(r)}" to follow (known: all, ${
          PROVENANCE_RELATIONS.join(", ")
        })`,
        { relation: r },
      );
    }
  }
  return new Set(list as Relation[]);
}

/**
 * Resolves the root to a node (`provenance.md` §2.2).
 *
 * @param root a path, or a job reference
 * @param o rootType, cwd, job roots
 * @returns the root node
 * @throws ScoutError `root_not_found`
 */
export function resolveRoot(
  root: string | JobRef,
  o: {
    rootType?: NodeKind;
    cwd: string;
    jobRoots: readonly string[];
    env?: TraverseOptions["env"];
  },
): NodeRef {
  const kind: NodeKind = o.rootType ?? (typeof root === "object" ? "job" : "chat");
  const raw = typeof root === "object" ? root.path : root;
  if (kind === "chat") {
    const path = canonicalPath(raw, o.cwd);
    if (!isReadableFile(path)) {
      throw new ScoutError("root_not_found", `Chat not found: ${raw}`, { file: raw });
    }
    return { kind: "chat", path };
  }
  const resolved = resolveJobNode(raw, { cwd: o.cwd, jobRoots: o.jobRoots, env: o.env }) ??
    (jobExists(canonicalPath(raw, o.cwd))
      ? { kind: "job" as const, path: canonicalPath(raw, o.cwd), info: null }
      : null);
  if (resolved === null) {
    throw new ScoutError("root_not_found", `Job not found: ${raw}`, { file: raw });
  }
  if (typeof root === "object" && root.info !== null) resolved.info = root.info;
  return resolved;
}

export { chatJobReferences } from "./chat_facts.ts";

/**
 * Reads and parses a chat file (`provenance.md` §1.5): `loadRawSync`, the
 * plain parser only (nothing compiled, invalid UTF-8 replaced).
 *
 * @param path chat file
 * @returns the messages
 * @throws ScoutError `not_found` / `io` naming the path
 */
export function loadChatFile(path: string): Message[] {
  return loadRawSync(path);
}

/**
 * Walks provenance from `root`, breadth-first, yielding one record per edge
 * (repeats included: `firstVisit` is false for a node already yielded, which
 * is then not expanded again). Order is deterministic: a chat's `job` markers
 * (message order) then its receipt jobs (receipt order); a job's
 * dependencies (info order), its log chats (byte order), its result chat.
 *
 * Problems go to `onError`; without one the first problem is thrown (strict).
 * Option and root errors are thrown immediately.
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef; or
 *   several of them, walked together ({@link ProvenanceRoots})
 * @param o options: rootType, follow, onError, cwd, jobRoots, onChat
 * @returns a lazy generator of records
 * @throws ScoutError `invalid_follow`, `root_not_found`
 *
 * @example
 * ```ts ignore
 * import { traverseProvenance } from "./traverse.ts";
 * for (const r of traverseProvenance("session.chat", { onError: (e) => console.warn(e.message) })) {
 *   console.log(r.relation ?? "root", r.kind, r.node.path, r.firstVisit);
 * }
 * ```
 */
export function traverseProvenance(
  root: ProvenanceRoots,
  o: TraverseOptions = {},
): Generator<TraversalRecord> {
  return walkProvenance(root, o);
}

/** What the report and token accounting add to the traversal's options (internal). */
export interface WalkHooks {
  /** Receives each chat's facts once, in first-visit order. */
  onFacts?: (facts: ChatFacts) => void;
  /** Queued chats that start the read-ahead helper thread (default 1,000; `Infinity`: never). */
  helperThreshold?: number;
  /**
   * Lets each job's `.info` go once the job is expanded (its first record
   * carried it): the report keeps only a summary, and 20,000 parsed `.info`
   * files would otherwise live as long as the walk.
   */
  releaseInfo?: boolean;
}

/**
 * {@link traverseProvenance} with the internal hooks: the report and token
 * accounting take each chat's facts instead of its messages, which lets
 * chats be read ahead on a helper thread (`facts_pool.ts`).
 *
 * @param root chat path, job path (with `rootType: "job"`) or a JobRef, or several
 * @param o traversal options and hooks
 * @returns a lazy generator of records
 * @throws ScoutError `invalid_follow`, `root_not_found`
 */
export function walkProvenance(
  root: ProvenanceRoots,
  o: TraverseOptions & WalkHooks = {},
): Generator<TraversalRecord> {
  const follow = followSet(o.follow);
  const cwd = o.cwd ?? process.cwd();
  const givenRoots = o.jobRoots ?? defaultJobRoots(cwd, o.env);
  const rootNodes = resolveRoots(root, {
    rootType: o.rootType,
    cwd,
    jobRoots: givenRoots,
    env: o.env,
  });
  // a job given by path implies its store: its own `meta: job=` markers resolve there (R105-5)
  let jobRoots: readonly string[] = givenRoots;
  for (const n of rootNodes) {
    jobRoots = withOwnStoreRoot(jobRoots, n.path, n.kind === "job" ? n.info : null);
  }
  return walk(rootNodes, {
    follow,
    cwd,
    jobRoots,
    onError: o.onError,
    onChat: o.onChat,
    onFacts: o.onFacts,
    helperThreshold: o.helperThreshold,
    ...(o.toolCalls ? { toolCalls: true } : {}),
    ...(o.releaseInfo ? { releaseInfo: true } : {}),
    env: o.env,
  });
}

/**
 * Each root resolved ({@link resolveRoot}), in the order given, those naming
 * a node already given left out.
 *
 * @throws ScoutError `root_not_found` for the first root that is not there
 */
function resolveRoots(
  root: ProvenanceRoots,
  o: Parameters<typeof resolveRoot>[1],
): NodeRef[] {
  const list: readonly (string | JobRef)[] = Array.isArray(root) ? root : [root as string | JobRef];
  if (list.length === 0) throw new ScoutError("root_not_found", "No root to walk");
  const out: NodeRef[] = [];
  const given = new Set<string>();
  for (const r of list) {
    const n = resolveRoot(r, o);
    const key = `${n.kind}:${n.path}`;
    if (given.has(key)) continue;
    given.add(key);
    out.push(n);
  }
  return out;
}

interface WalkOptions extends WalkHooks {
  follow: Set<Relation>;
  cwd: string;
  jobRoots: readonly string[];
  onError?: OnError;
  onChat?: TraverseOptions["onChat"];
  toolCalls?: boolean;
  env?: TraverseOptions["env"];
}

function* walk(rootNodes: NodeRef[], o: WalkOptions): Generator<TraversalRecord> {
  const reader = chatReader({
    onChat: o.onChat,
    agentJob: o.follow.has("agent_job"),
    helperThreshold: o.helperThreshold,
    ...(o.toolCalls ? { toolCalls: true } : {}),
  });
  try {
    yield* walkWith(rootNodes, reader, o);
  } finally {
    reader.close();
  }
}

/**
 * Job-reference resolution for one walk: one walk sees one file system, so
 * each distinct reference is resolved once (big stores repeat the same
 * `job=` markers and dependency paths many times).
 */
function referenceResolver(o: WalkOptions): {
  resolve: (ref: string | number) => JobRef | null;
  insideRoots: (jobPath: string) => boolean;
} {
  const resolveOpts = { cwd: o.cwd, jobRoots: o.jobRoots, env: o.env };
  const resolvedRefs = new Map<string, JobRef | null>();
  const resolve = (ref: string | number): JobRef | null => {
    const key = String(ref);
    let job = resolvedRefs.get(key);
    if (job === undefined) resolvedRefs.set(key, job = resolveJobNode(ref, resolveOpts));
    return job;
  };
  return { resolve, insideRoots: insideJobRoots(resolveOpts) };
}

/**
 * One node object per kind and path, keyed by the node's own path string (an
 * id string per node, `chat:<path>`, would be a second copy of every path for
 * the whole walk: ~20 MB on a 2 GB store); a chat met for the first time is
 * announced to the reader.
 */
function nodeInterner(rootNodes: readonly NodeRef[], reader: ChatReader) {
  const nodes = { chat: new Map<string, NodeRef>(), job: new Map<string, NodeRef>() };
  for (const n of rootNodes) nodes[n.kind].set(n.path, n);
  return <T extends NodeRef>(n: T): T => {
    const byPath = nodes[n.kind];
    const known = byPath.get(n.path);
    if (known !== undefined) return known as T;
    byPath.set(n.path, n);
    if (n.kind === "chat") reader.discovered(n.path); // it will be read: maybe start now
    return n;
  };
}

function* walkWith(
  rootNodes: readonly NodeRef[],
  reader: ChatReader,
  o: WalkOptions,
): Generator<TraversalRecord> {
  const intern = nodeInterner(rootNodes, reader);
  const { resolve, insideRoots } = referenceResolver(o);
  // several roots: each starts the queue, in order (one walk: shared nodes expand once)
  const queue: Pending[] = rootNodes.map((node) => ({
    node,
    parent: null,
    relation: null,
    detail: null,
  }));
  const seen = new Set<NodeRef>(); // interned nodes: one object per node id
  const infoErrors = new Map<NodeRef, string>();

  const report = (
    error: ReturnType<typeof provenanceError>,
    node: NodeRef,
  ) => {
    if (o.onError === undefined) throw error;
    o.onError(error, node.kind, node, error.relation, error.reference);
  };

  for (let head = 0; head < queue.length; head++) {
    const p = queue[head]!;
    queue[head] = undefined as unknown as Pending; // let the queue's past be collected
    const firstVisit = !seen.has(p.node);
    if (firstVisit && p.node.kind === "job" && p.node.info === null) {
      const read = readJobNodeInfo(p.node.path);
      p.node.info = read.info;
      if (read.error !== null) infoErrors.set(p.node, read.error);
    }
    yield {
      kind: p.node.kind,
      node: p.node,
      parentKind: p.parent?.kind ?? null,
      parent: p.parent,
      relation: p.relation,
      firstVisit,
      detail: p.detail,
    };
    if (!firstVisit) continue;
    seen.add(p.node);
    const push = (node: NodeRef, relation: Relation, detail: Pending["detail"] = null) =>
      queue.push({ node: intern(node), parent: p.node, relation, detail });

    if (p.node.kind === "chat") {
      expandChat(p.node, p.relation, { ...o, reader, resolve, insideRoots, report, push });
    } else {
      const infoError = infoErrors.get(p.node);
      infoErrors.delete(p.node);
      expandJob(p.node, infoError, { ...o, reader, resolve, insideRoots, report, push });
      if (o.releaseInfo) p.node.info = null;
    }
    reader.flush(); // the chats this node queued go to the helper together
  }
}
