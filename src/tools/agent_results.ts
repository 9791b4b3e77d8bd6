/**
 * Tools that return an agent (`agents.md` §3.2, DESIGN.md §1): a tool handler
 * may return `{agent}` — a specialist to run — instead of an output. The
 * dispatcher collects every such result of one batch and, after all calls of
 * the batch were dispatched, hands them to a runner passed in from above
 * (the agent layer); `tools/` and `llm/` never know what an agent is.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";

/** What a tool returns to have a specialist run: `{agent}` and nothing else. */
export interface AgentRequest {
  /** The specialist (opaque here: the runner knows its shape). */
  agent: object;
}

/** What running one specialist produced. */
export interface SpecialistResult {
  /** The specialist's answer text (the tool output's `content`). */
  content: string;
  /**
   * Receipts: the `meta` messages of its inferences (attached when non-empty,
   * to an error output too: what a failed run paid for).
   */
  agent_meta?: Message[];
  /**
   * The conversation the run belongs to, when the call does not name it (a
   * one-shot clone's `_oneshot-<n>`): its society log is `<conversation>.chat`.
   */
  conversation?: string;
  /**
   * The agent whose society log holds the run, when the call does not name it
   * (a specialist a custom tool returned): its log is `<agent>/<conversation>.chat`.
   */
  agent?: string;
  /** Set when the run failed: the output becomes an error output with this message. */
  error?: unknown;
}

/**
 * Runs the specialists of one batch (in the batch's call order) and returns
 * one result per request, same order. Supplied by the agent layer. It calls
 * `ended(k)` as the run of request `k` ends (answered, failed or interrupted):
 * the dispatcher stamps that call's output `timestamp` then, not when the
 * whole batch is done (a runner that never calls it gets the batch's end);
 * and `started(k)` as that run begins, after any wait in the runner's queue
 * (`ASK_AGENTS`): its `start_timestamp` (else the batch's dispatch).
 */
export type SpecialistRunner = (
  agents: object[],
  ended?: (k: number) => void,
  started?: (k: number) => void,
) => Promise<SpecialistResult[]>;

/**
 * Whether a tool result asks for a specialist run: a plain object whose only
 * key is `agent`, holding an object.
 *
 * @param v a tool handler's return value
 * @returns true for `{agent}`
 *
 * @example
 * ```ts
 * import { isAgentRequest } from "./agent_results.ts";
 * isAgentRequest({ agent: { name: "Worker" } }); // true
 * isAgentRequest({ agent: "Worker" }); // false
 * ```
 */
export function isAgentRequest(v: unknown): v is AgentRequest {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  const keys = Object.keys(v);
  const a = (v as { agent?: unknown }).agent;
  return keys.length === 1 && keys[0] === "agent" && typeof a === "object" && a !== null;
}
