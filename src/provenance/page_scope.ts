/**
 * Which files the `--html` page may embed (R99-1): the page is meant to be
 * shared, and the walk follows symbolic links from a job's `log/` to regular
 * files anywhere (`provenance.md` §3). A node's messages are embedded only
 * when its real path lies inside the tree it was reached from — a log inside
 * its job's own `.files/`, any other node inside a job root or the root's
 * directory tree — and never under `/proc`, `/sys` or `/dev`. The root
 * itself, given by the user, always is; with several roots (R134-1), each
 * root, and a node inside any root's directory tree.
 *
 * @module
 */
import { dirname, sep } from "node:path";
import { canonicalPath } from "./paths.ts";
import type { ProvenanceReport, ReportEdge } from "./report_types.ts";

/** Trees a walk's nodes may be embedded from. */
export interface PageScope {
  /** Job roots (`--jobs-dir` and the defaults), as given. */
  jobRoots?: readonly string[];
  /** Base of relative job roots (default: the process's). */
  cwd?: string;
}

/** System trees never embedded. */
const SYSTEM = ["/proc/", "/sys/", "/dev/"];

const under = (path: string, dir: string): boolean =>
  path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * A test of whether a node's file may be embedded in the page.
 *
 * @param report the report (root and edges)
 * @param scope the job roots
 * @returns `(id, path) → boolean`, `id` the node id of the file read
 */
export function pageEmbeddable(
  report: ProvenanceReport,
  scope: PageScope = {},
): (id: string, path: string) => boolean {
  const cwd = scope.cwd ?? process.cwd();
  const roots = new Set(report.roots ?? [report.root]);
  const rootDirs = [...roots].map((id) => dirname(id.replace(/^(chat|job):/, "")));
  const trees = [...rootDirs, ...(scope.jobRoots ?? []).map((r) => canonicalPath(r, cwd))];
  const incoming = new Map<string, ReportEdge[]>();
  for (const e of report.edges) {
    const list = incoming.get(e.to);
    if (list === undefined) incoming.set(e.to, [e]);
    else list.push(e);
  }
  const inTrees = (path: string) => trees.some((t) => under(path, t));
  return (id, path) => {
    if (roots.has(id)) return true;
    if (SYSTEM.some((s) => path.startsWith(s))) return false;
    return (incoming.get(id) ?? []).some((e) =>
      e.relation === "log" ? under(path, e.from.replace(/^job:/, "") + ".files") : inTrees(path)
    );
  };
}
