/**
 * Renderers of the tool-call report (`llm prov --tools`): a text table and
 * the `scout-ai/tool-calls` JSON document (version 1). Pure functions of
 * {@link provenanceToolCalls}'s result.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import type { ProvenanceToolCall, ToolCallWarning } from "./tool_calls.ts";
import { shortenMiddle } from "./tool_calls.ts";
import { copyOf, distinctToolCalls } from "./tool_call_copies.ts";
import { escapeLine } from "./one_line.ts";
import { wellFormedDeep } from "../util/code_points.ts";
import { columnWidth, padToWidth } from "../util/display_width.ts";

/** The schema name of the tool-call document. */
export const TOOL_CALLS_SCHEMA = "scout-ai/tool-calls";
/** Its version: adding fields keeps it, renaming or removing fields bumps it. */
export const TOOL_CALLS_SCHEMA_VERSION = 1;

/** Longest arguments text in the JSON document (shortened in the middle). */
export const JSON_ARGUMENTS_MAX = 200;

/** Kept here too: `--tools` and ChatAnalyst import it from this module. */
export { escapeLine };

/**
 * The arguments of a call as one line of compact JSON (a string argument
 * is shown as is), shortened in the middle.
 *
 * @param args raw arguments
 * @param max maximum length
 * @returns the text
 */
export function argumentsText(args: unknown, max: number): string {
  return shortenMiddle(escapeLine(rawArguments(args)), max);
}

function rawArguments(args: unknown): string {
  return typeof args === "string" ? args : args === undefined ? "" : JSON.stringify(args) ?? "";
}

/**
 * What a call did, as JSON: its arguments (raw text shortened in the middle
 * to {@link JSON_ARGUMENTS_MAX}), status, reason, exception, exit status and
 * duration — shared by `llm prov --tools --json` and ChatAnalyst.
 *
 * @param c the call
 * @returns the fields
 */
export function callOutcomeJson(c: ProvenanceToolCall): {
  arguments: string;
  status: ProvenanceToolCall["status"];
  reason: ProvenanceToolCall["reason"];
  exception: ProvenanceToolCall["exception"];
  exitStatus: ProvenanceToolCall["exitStatus"];
  durationMs: ProvenanceToolCall["durationMs"];
} {
  return {
    arguments: shortenMiddle(rawArguments(c.arguments), JSON_ARGUMENTS_MAX),
    status: c.status,
    reason: c.reason,
    exception: c.exception,
    exitStatus: c.exitStatus,
    durationMs: c.durationMs,
  };
}

/**
 * A duration for people: `850ms`, `1.2s`, `2m03s`, `1h00m02s` (R163: an
 * hour and more read in minutes only, `1440m00s`), or `-` when unknown.
 * The units are `formatAge`'s (`util/age.ts`); a tenth of a second short of
 * a minute is `1m00s`, not `60.0s`.
 *
 * @param ms milliseconds or null
 * @returns the text
 */
export function durationText(ms: number | null): string {
  if (ms === null) return "-";
  if (ms < 1000) return `${ms}ms`;
  if (Math.round(ms / 100) < 600) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes}m${two(s % 60)}s`;
  return `${Math.floor(minutes / 60)}h${two(minutes % 60)}m${two(s % 60)}s`;
}

/**
 * The agent of a call for people: `Critic · default`, `Planner`, or `-`.
 *
 * @param c a call
 * @returns the label
 */
export function agentLabel(c: ProvenanceToolCall): string {
  if (c.agent.agent === null) return "-";
  const a = escapeLine(c.agent.agent);
  return c.agent.conversation === null ? a : `${a} · ${escapeLine(c.agent.conversation)}`;
}

const STATUS_TEXT: Record<ProvenanceToolCall["status"], string> = {
  ok: "ok",
  error: "error",
  missing_output: "missing output",
};

/**
 * The tool-call table: one line per call (tool, agent, status, duration,
 * shortened arguments), then a summary line. A call found in several chats
 * (a job's answer projected into the asking chat, the job's result chat and
 * its log: R111-4) is one line and counted once; when some are, a COPIES
 * column says in how many chats each was found, and the summary how many
 * copies were read. Every field is escaped to one line.
 *
 * @param calls the calls
 * @param baseDir paths in the delegation section are shown relative to it (default: as found)
 * @returns the text
 */
export function renderToolCalls(calls: readonly ProvenanceToolCall[], baseDir?: string): string {
  const distinct = distinctToolCalls(calls);
  const shown = distinct.map((d) => calls[d.shown]!);
  const copied = distinct.length < calls.length;
  const head = ["TOOL", "AGENT", "STATUS", "DURATION", ...(copied ? ["COPIES"] : []), "ARGUMENTS"];
  const rows = distinct.map(({ shown: at, copies }) => {
    const c = calls[at]!;
    return [
      shortenMiddle(escapeLine(c.tool ?? "?"), 32),
      shortenMiddle(agentLabel(c), 32),
      STATUS_TEXT[c.status] +
      (c.exitStatus !== null && c.status === "error" ? ` (exit ${c.exitStatus})` : ""),
      durationText(c.durationMs),
      ...(copied ? [String(copies.length)] : []),
      argumentsText(c.arguments, 60),
    ];
  });
  const widths = head.map((h, i) => columnWidth([h, ...rows.map((r) => r[i]!)]));
  const line = (r: string[]) =>
    r.map((v, i) => i === r.length - 1 ? v : padToWidth(v, widths[i]!)).join("  ").trimEnd();
  const count = (s: ProvenanceToolCall["status"]) => shown.filter((c) => c.status === s).length;
  const chats = new Set(calls.map((c) => c.chat)).size;
  return [
    line(head),
    ...rows.map(line),
    `${shown.length} call${shown.length === 1 ? "" : "s"}: ${count("ok")} ok, ${
      count("error")
    } error, ${count("missing_output")} missing output${
      copied ? ` (${calls.length} copies in ${chats} chats, each call counted once)` : ""
    }`,
    ...delegationLines(shown, baseDir),
  ].join("\n") + "\n";
}

/**
 * The delegation section of the table: one line per `ask` /
 * `hand_off_to_*` call — who asked whom (and in which conversation), how
 * the call links (`structural` job, `inferred` society log, `none`), and
 * the job or log it links to.
 *
 * @param calls the calls
 * @param baseDir paths are shown relative to it (default: as found)
 * @returns the lines (none when no call delegates)
 */
export function delegationLines(calls: readonly ProvenanceToolCall[], baseDir?: string): string[] {
  const shown = (p: string) =>
    baseDir === undefined || !isAbsolute(p) ? p : relative(baseDir, p) || p;
  const rows = calls.flatMap((c) => {
    const d = c.delegation;
    if (d === null) return [];
    const to = escapeLine(d.target ?? "?") +
      (d.conversation === null ? "" : ` · ${escapeLine(d.conversation)}`);
    // a structural call shows its job, an inferred one its log; "+N" counts the rest
    const links = d.association === "structural" ? d.jobs : d.logs;
    const more = links.length > 1 ? ` (+${links.length - 1})` : "";
    return [[
      shortenMiddle(`${agentLabel(c)} → ${to}`, 48),
      d.association,
      links[0] === undefined ? "-" : shortenMiddle(escapeLine(shown(links[0])), 80) + more,
    ]];
  });
  if (rows.length === 0) return [];
  const w0 = columnWidth(rows.map((r) => r[0]!));
  const w1 = columnWidth(rows.map((r) => r[1]!));
  return [
    "",
    "Delegations (structural: a receipt names the job; inferred: only a society log's path matches):",
    ...rows.map((r) => `  ${padToWidth(r[0]!, w0)}  ${padToWidth(r[1]!, w1)}  ${r[2]}`),
  ];
}

/**
 * The `scout-ai/tool-calls` document (`docs/provenance-json.md`): `{schema,
 * version, root, summary, calls, warnings}`; `summary` counts calls as the
 * table does, each once however many chats hold a copy (R111-4); `calls`
 * has one row per copy, each with `tool, agent, conversation, agentFrom,
 * chat, job, callId, callAddress, outputAddress, arguments` (compact JSON
 * text shortened to {@link JSON_ARGUMENTS_MAX}) `, status, reason,
 * exception, exitStatus, durationMs, delegation` (null, or for `ask` /
 * `hand_off_to_*` calls `{target, conversation, receipt, association, jobs,
 * logs}`) and `copyOf` (null for the row the table shows, else that row's
 * index). Strings taken from chats are made well-formed (a lone surrogate
 * from a `\ud800` escape in a call's JSON becomes U+FFFD), so jq reads it.
 *
 * @param root root path (the first root's, with several)
 * @param calls the calls
 * @param warnings walk problems
 * @param roots every root's path: with several, the document's `roots`
 *   after `root` (R134-1; one root's document is as it was)
 * @returns the document
 */
export function toolCallsJson(
  root: string,
  calls: readonly ProvenanceToolCall[],
  warnings: readonly ToolCallWarning[],
  roots: readonly string[] = [root],
): Record<string, unknown> {
  const distinct = distinctToolCalls(calls);
  const copies = copyOf(calls, distinct);
  const summary = { calls: distinct.length, ok: 0, error: 0, missing_output: 0 };
  for (const d of distinct) summary[calls[d.shown]!.status]++;
  return wellFormedDeep({
    schema: TOOL_CALLS_SCHEMA,
    version: TOOL_CALLS_SCHEMA_VERSION,
    root,
    ...(roots.length > 1 ? { roots } : {}),
    summary,
    calls: calls.map((c, i) => ({
      tool: c.tool,
      agent: c.agent.agent,
      conversation: c.agent.conversation,
      agentFrom: c.agent.from,
      chat: c.chat,
      job: c.job,
      callId: c.callId,
      callAddress: c.callAddress,
      outputAddress: c.outputAddress,
      ...callOutcomeJson(c),
      delegation: c.delegation,
      copyOf: copies[i],
    })),
    warnings: warnings.map((w) => ({ code: w.code, message: w.message })),
  }) as Record<string, unknown>;
}
