/**
 * Reads what the provenance page shows of each visible node: a chat's
 * messages; a job's own conversation (its hidden `log/agent.chat`, system
 * prompt and metas included), else a chat job's result messages — shortened
 * so that the page
 * stays small on big stores (each message ≤ 2,000 characters, ≤ 40 messages
 * per node, ≤ 2 M characters in all, nodes in flow order; what is left out
 * is counted, and nodes past the budget show none). A file outside the
 * tree it was reached from is not read (`page_scope.ts`, R99-1).
 *
 * @module
 */
import { infoError, readJobInfoSync } from "../workflow/info.ts";
import { escapeLine } from "./one_line.ts";
import type { ProvenanceReport, ReportNode } from "./report.ts";
import type { PageMessage, PageNodeDetail } from "./render_html.ts";
import { loadChatFile } from "./traverse.ts";
import { pageEmbeddable, type PageScope } from "./page_scope.ts";
import { clipEnd } from "../util/clip.ts";

/** Caps of {@link pageDetails}. */
export interface PageDetailLimits {
  /** Characters kept of one message (default 2,000). */
  messageChars?: number;
  /** Messages kept per node (default 40). */
  nodeMessages?: number;
  /** Characters kept in all (default 2,000,000). */
  totalChars?: number;
  /** Where embedded files may lie (R99-1: the job roots; see `page_scope.ts`). */
  scope?: PageScope;
}

const FOLDED = new Set(["function_call", "function_call_output", "tool_call", "meta", "tool"]);

function shorten(text: string, max: number): string {
  return text.length <= max ? text : clipEnd(text, max, `… (${text.length - max} more characters)`);
}

/**
 * Whether a parsed chat's first message is the parser's placeholder: the
 * empty `user` message it puts at index 0 when the file starts with a role
 * line (`provenance.md` §1.5).
 */
function isPlaceholder(m: { role: string; content: unknown } | undefined): boolean {
  return m !== undefined && m.role === "user" && m.content === "";
}

/**
 * The details of every visible node (chats and chat jobs), without the
 * parser's empty first `user` message.
 *
 * @param report the report
 * @param limits caps
 * @returns node id → detail
 */
export function pageDetails(
  report: ProvenanceReport,
  limits: PageDetailLimits = {},
): Map<string, PageNodeDetail> {
  const messageChars = limits.messageChars ?? 2000;
  const nodeMessages = limits.nodeMessages ?? 40;
  let budget = limits.totalChars ?? 2_000_000;
  const out = new Map<string, PageNodeDetail>();
  const conversations = jobConversations(report);
  const embeddable = pageEmbeddable(report, limits.scope);
  for (const n of report.nodes) {
    if (n.hidden !== null) continue;
    const error = jobError(n) ?? chatError(n);
    const detail = (d: PageNodeDetail) => out.set(n.id, error === null ? d : { ...d, error });
    const conversation = conversations.get(n.id);
    const source = conversation ??
      (n.kind === "chat" || n.job?.type === "chat" ? n.path : null);
    if (source === null || budget <= 0) {
      detail({ messages: null });
      continue;
    }
    if (!embeddable(conversation === undefined ? n.id : `chat:${source}`, source)) {
      detail({ messages: null, outside: true });
      continue;
    }
    let all;
    try {
      all = loadChatFile(source);
    } catch {
      detail({ messages: null });
      continue;
    }
    // the parser's empty `user` at index 0 (a file that starts with a role line) is no message
    const from = isPlaceholder(all[0]) ? 1 : 0;
    const messages: PageMessage[] = [];
    for (const m of all.slice(from, from + nodeMessages)) {
      const raw = typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "");
      const text = shorten(raw, messageChars);
      budget -= text.length;
      messages.push(
        FOLDED.has(m.role) ? { role: m.role, text, fold: true } : { role: m.role, text },
      );
      if (budget <= 0) break;
    }
    const omitted = all.length - from - messages.length;
    detail({
      messages,
      ...(omitted > 0 ? { omitted } : {}),
      ...(conversation !== undefined ? { source: "log/agent.chat" } : {}),
    });
  }
  return out;
}

/** Characters kept of a failed job's message. */
const ERROR_CHARS = 500;

/**
 * The error message of a job that is not done (R87-4): the last
 * `Class: message` entry of its `.info` `messages`, else the last string
 * there; its first line, control characters escaped, at most
 * {@link ERROR_CHARS} characters. Null for a done job or without a message.
 */
function jobError(n: ReportNode): string | null {
  const status = n.job?.status ?? null;
  if (n.kind !== "job" || status === null || status === "done") return null;
  const { info } = readJobInfoSync(n.path);
  const found = infoError(info);
  const messages = Array.isArray(info?.messages) ? info.messages : [];
  const last = messages.findLast((m): m is string => typeof m === "string");
  const text = found !== null ? `${found.className}: ${found.message}` : last;
  if (text === undefined) return null;
  return shorten(escapeLine(text.split(/\r?\n/, 1)[0]!), ERROR_CHARS);
}

/**
 * The error of a chat whose last inference failed (R127-2): its record's
 * `error` (else its `reason`), one line, at most {@link ERROR_CHARS}
 * characters. Null for any other node.
 */
function chatError(n: ReportNode): string | null {
  const f = n.failure;
  if (f === undefined) return null;
  return shorten(escapeLine((f.error ?? f.reason).split(/\r?\n/, 1)[0]!), ERROR_CHARS);
}

/** Job id → its own conversation's path (the hidden `log/agent.chat` folded into it). */
function jobConversations(report: ProvenanceReport): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of report.nodes) {
    if (n.hidden === "top_level_agent_log" && n.owner !== null) out.set(n.owner, n.path);
  }
  return out;
}
