/**
 * ChatAnalyst's workflow helpers: the one traversal a task makes. A task
 * calls one of these once; nothing here keeps state between tasks (the
 * seed's rule: no Session object, no second walk inside a task). Bad input
 * (a missing file, a directory) is not thrown: it comes back as a warning,
 * so a task's result says what went wrong instead of reporting nothing.
 *
 * @module
 */
import { isDirectory, isFile } from "../util/fs.ts";
import {
  type LoadedChat,
  provenanceJson,
  type ProvenanceReport,
  provenanceReport,
  provenanceRoot,
  type ReportNode,
  traverseProvenance,
} from "../provenance/mod.ts";
import { nodeId } from "../provenance/paths.ts";
import { type ProvenanceToolCall, toolCallCollector } from "../provenance/tool_calls.ts";

/**
 * A problem the analysis met: the `prov --json` warning's `code`, `message`
 * and `node` (R143-1: every result's warnings have the three).
 */
export interface AnalystWarning {
  /** Stable code (`root_not_found`, `not_a_chat`, `receipt_problem`…). */
  code: string;
  /** One-line message naming the file. */
  message: string;
  /** Id of the node it is about, or null (bad input, an address outside the walk). */
  node: string | null;
}

/** Where a walk starts, or why it cannot. */
export type AnalystRoot =
  | { ok: true; path: string; rootType: "chat" | "job"; jobRoots: string[] }
  | { ok: false; path: string; warning: AnalystWarning };

/**
 * Resolves a task's `file` input: a job path (its `.info` or `.files`
 * exists) or a chat file; a directory or a missing path gives a warning.
 *
 * @param file the input (relative to `cwd`)
 * @param jobsDirs extra job roots (searched first)
 * @param env environment for the default job roots
 * @param cwd working directory
 * @returns the root or the warning
 */
export function analystRoot(
  file: string,
  jobsDirs: readonly string[],
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): AnalystRoot {
  const { path, rootType, jobRoots } = provenanceRoot(String(file ?? ""), { cwd, env, jobsDirs });
  if (rootType === "job") return { ok: true, path, rootType, jobRoots };
  if (isDirectory(path)) {
    return {
      ok: false,
      path,
      warning: {
        code: "not_a_chat",
        message: `"${path}" is a directory, not a chat file or a job`,
        node: null,
      },
    };
  }
  if (!isFile(path)) {
    return {
      ok: false,
      path,
      warning: { code: "root_not_found", message: `Chat or job not found: "${path}"`, node: null },
    };
  }
  return { ok: true, path, rootType: "chat", jobRoots };
}

/** What the provenance walk of a task collects. */
export interface AnalystWalk {
  /** The root path (as given, resolved). */
  path: string;
  /** The `llm prov` report, or null when the root could not be walked. */
  report: ProvenanceReport | null;
  /** Every tool call of the walked chats. */
  toolCalls: ProvenanceToolCall[];
  /** The input problem, when there is one. */
  warnings: AnalystWarning[];
}

/**
 * The provenance walk behind `chat_provenance`: the `llm prov` report of
 * `file`, with every chat's tool calls paired as the walk reads it — one
 * traversal.
 *
 * @param file chat file or job path
 * @param jobsDirs extra job roots
 * @returns the report, the calls and input warnings
 */
export function provenanceWalk(file: string, jobsDirs: readonly string[]): AnalystWalk {
  const root = analystRoot(file, jobsDirs);
  if (!root.ok) return { path: root.path, report: null, toolCalls: [], warnings: [root.warning] };
  const collector = toolCallCollector();
  const report = provenanceReport(root.path, {
    rootType: root.rootType,
    jobRoots: root.jobRoots,
    // the calls are paired on the walk's helper thread with the rest of each
    // chat's facts (an onChat hook would read every chat on this thread)
    toolCalls: true,
    onChatFacts: collector.onFacts,
  });
  // a chat's job: the first job edge into it (what the traversal records say);
  // every edge also tells the delegation calls what they link to
  const nodes = new Map<string, ReportNode>();
  for (const n of report.nodes) nodes.set(n.id, n);
  for (const e of report.edges) {
    const from = nodes.get(e.from);
    const to = nodes.get(e.to);
    if (from === undefined || to === undefined) continue;
    collector.onEdge({ from, to, relation: e.relation, detail: e.detail });
    if (from.kind !== "job" || to.kind !== "chat") continue;
    const info = from.job === null ? null : { workflow: from.job.workflow };
    collector.setOwner(to.path, { kind: "job", path: from.path, info });
  }
  return { path: root.path, report, toolCalls: collector.calls(), warnings: [] };
}

/** What {@link chatWalk} found besides the chats. */
export interface ChatWalk {
  /** The root path (as given, resolved). */
  path: string;
  /** The root's node id (as the report's `root`), or null when it could not be walked. */
  root: string | null;
  /** Input and traversal problems, each with the node it is about. */
  warnings: AnalystWarning[];
}

/**
 * A plain walk handing each discovered chat to `onChat` (for the message
 * tasks, which need messages but no token accounting): one traversal,
 * problems collected as warnings with their node, as the report has them.
 *
 * @param file chat file or job path
 * @param jobsDirs extra job roots
 * @param onChat receives each chat once, in discovery order
 * @returns the resolved root, its node id and the warnings
 */
export function chatWalk(
  file: string,
  jobsDirs: readonly string[],
  onChat: (chat: LoadedChat) => void,
): ChatWalk {
  const root = analystRoot(file, jobsDirs);
  if (!root.ok) return { path: root.path, root: null, warnings: [root.warning] };
  const warnings: AnalystWarning[] = [];
  const walk = traverseProvenance(root.path, {
    rootType: root.rootType,
    jobRoots: root.jobRoots,
    onChat,
    onError: (e) =>
      warnings.push({ code: e.code, message: e.message, node: nodeId(e.kind, e.nodePath) }),
  });
  let rootId: string | null = null;
  for (const r of walk) rootId ??= nodeId(r.kind, r.node.path); // the first record is the root's
  return { path: root.path, root: rootId, warnings };
}

/**
 * The `prov --json` document's warnings of a report, as analyst warnings
 * (code, message, and the node they are about).
 *
 * @param report the report
 * @returns the warnings
 */
export function reportWarnings(report: ProvenanceReport): AnalystWarning[] {
  return report.warnings.map((w) => ({ code: w.code, message: w.message, node: w.node }));
}

export { provenanceJson };
