/**
 * A pending call on a specialist (`agents.md` §3.2, §7.8): what a tool
 * handler returns as `{agent: call}` to have a specialist run with a prompt.
 * Plain data; `specialists.ts` runs it, `tool_society.ts` logs it.
 *
 * @module
 */
import type { Agent } from "./types.ts";

/** Brand of {@link SpecialistCall}. */
export const SPECIALIST_CALL: unique symbol = Symbol.for("scout-ai.specialist-call");

/**
 * A pending call on a specialist: its prompt is appended only when the call
 * runs (§7.8: two calls to one conversation in a turn must not both append
 * before either runs).
 */
export interface SpecialistCall {
  /** Brand. */
  [SPECIALIST_CALL]: true;
  /** The specialist (a clone, or a delegate's live agent). */
  specialist: Agent;
  /** The user message to append before running (never parsed, §3.6). */
  prompt: string;
  /** Restart the specialist's chat first (`new_conversation` of a hand-off). */
  restart?: boolean;
  /**
   * The conversation: recorded on the output (a one-shot's, which the call
   * does not name), and the log name of a specialist a tool of its own
   * returns (`society/<Agent>/<conversation>.chat` when free, `tool_society.ts`).
   */
  conversation?: string;
  /**
   * Runs when the call runs, before the restart and the prompt; what it
   * returns is recorded on the output as the conversation (over
   * `conversation`). A hand-off keeps the conversation a restart ends under
   * its log name here and names the one that starts.
   */
  begin?: () => string | undefined;
}

/**
 * Builds a pending call, for a tool handler to return as `{agent: call}`.
 *
 * @param specialist the agent to run
 * @param prompt its user message
 * @param opts `restart`: start a new conversation first; `conversation`:
 *   recorded on the output, and the specialist's society log name when the
 *   caller's `chats` does not hold it yet; `begin`: see {@link SpecialistCall}
 * @returns the call
 *
 * @example
 * ```ts
 * import { createAgent } from "./agent.ts";
 * import { specialistCall } from "./specialist_call.ts";
 * const expert = createAgent({ name: "Expert" });
 * const call = specialistCall(expert, "What is 2 + 2?");
 * call.prompt; // "What is 2 + 2?"
 * ```
 */
export function specialistCall(
  specialist: Agent,
  prompt: string,
  opts: { restart?: boolean; conversation?: string; begin?: () => string | undefined } = {},
): SpecialistCall {
  return {
    [SPECIALIST_CALL]: true,
    specialist,
    prompt,
    ...(opts.restart ? { restart: true } : {}),
    ...(opts.conversation !== undefined ? { conversation: opts.conversation } : {}),
    ...(opts.begin !== undefined ? { begin: opts.begin } : {}),
  };
}

/**
 * Whether a tool's `{agent}` is a {@link SpecialistCall} (else it is an agent).
 *
 * @param v what the tool returned under `agent`
 * @returns true for a pending call
 */
export function isSpecialistCall(v: object): v is SpecialistCall {
  return (v as Record<symbol, unknown>)[SPECIALIST_CALL] === true;
}

/**
 * The agent a tool's `{agent}` runs: the call's specialist, or the agent.
 *
 * @param v what the tool returned under `agent`
 * @returns the specialist
 */
export function specialistOf(v: object): Agent {
  return isSpecialistCall(v) ? v.specialist : v as Agent;
}
