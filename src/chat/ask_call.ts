/**
 * The arguments of an `ask` call (`agents.md` §3.1 steps 1–2, [TS-FIX] §7.2:
 * digits allowed in names, `.`/`..` rejected): which specialist, the prompt,
 * the conversation (the legacy `chat` argument mapped as Ruby's replayed
 * chats use it) and the inheritance mode. The agent layer runs calls with
 * it; provenance reads recorded calls with it, so both agree on what a call
 * named.
 *
 * @module
 */
import { contentObject } from "./tool_calls.ts";
import type { Message } from "./types.ts";

const NAME = /^[A-Za-z0-9_.-]+$/;
/**
 * The longest agent name or conversation id an `ask` call may give
 * ([TS-FIX]): each is a file or directory name of the job's logs
 * (`society/<Agent>/<id>.chat`, `society/<Agent>/<id>/`), which must fit the
 * file system's 255-byte limit; longer ids failed the job after its
 * inferences were paid for.
 */
export const MAX_ASK_NAME = 100;
const CONVERSATION = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Inheritance modes of a new conversation (§3.4). */
export type InheritMode = "none" | "tools" | "conversation";
type Mode = InheritMode;
const MODES: readonly InheritMode[] = ["none", "tools", "conversation"];

/** A parsed `ask` call. */
export interface AskCall {
  /** Specialist name. */
  agent: string;
  /** The user message. */
  prompt: string;
  /** Conversation id; null = one-shot. */
  conversation: string | null;
  /** Inheritance mode. */
  inherit: InheritMode;
}

/**
 * Checks and normalises the arguments of an `ask` call (§3.1 steps 1–2,
 * [TS-FIX] §7.2: digits allowed, `.`/`..` rejected).
 *
 * @param params the model's arguments
 * @returns the call, or the problems
 */
export function askArguments(params: Record<string, unknown>): AskCall | string[] {
  const problems: string[] = [];
  const p = { ...params };
  let conversation: unknown = p.conversation;
  let defaultMode: Mode = "tools";
  if (p.chat !== undefined) {
    if (p.conversation !== undefined) return ['use either "chat" or "conversation", not both'];
    const c = String(p.chat);
    if (c === "current") [conversation, defaultMode] = ["current", "conversation"];
    else if (c === "" || c === "none" || c === "false") {
      [conversation, defaultMode] = [null, "none"];
    } else conversation = c;
  }
  for (const k of Object.keys(p)) {
    if (!["agent", "prompt", "conversation", "inherit", "chat"].includes(k)) {
      problems.push(`unknown parameter "${k}"`);
    }
  }
  if (typeof p.prompt !== "string") problems.push(`"prompt" must be a string`);
  const agent = p.agent;
  if (!isAgentName(agent)) {
    problems.push(
      `"agent" must be a name of letters, digits, "_", "." or "-", got ${JSON.stringify(agent)}`,
    );
  } else if (agent.length > MAX_ASK_NAME) problems.push(tooLong("agent", agent));
  const inherit = p.inherit ?? defaultMode;
  if (!MODES.includes(inherit as Mode)) {
    problems.push(
      `"inherit" must be one of ${JSON.stringify(MODES)}, got ${JSON.stringify(inherit)}`,
    );
  }
  if (conversation !== undefined && conversation !== null) {
    if (typeof conversation !== "string" || !CONVERSATION.test(conversation)) {
      problems.push(
        `"conversation" must match ${CONVERSATION.source}, got ${JSON.stringify(conversation)}`,
      );
    } else if (conversation.length > MAX_ASK_NAME) {
      problems.push(tooLong("conversation", conversation));
    }
  }
  if (problems.length) return problems;
  return {
    agent: agent as string,
    prompt: p.prompt as string,
    conversation: (conversation as string | null | undefined) ?? null,
    inherit: inherit as Mode,
  };
}

/** Letters, digits, `_`, `.`, `-`, not `.` or `..` (its length is checked apart). */
function isAgentName(v: unknown): v is string {
  return typeof v === "string" && NAME.test(v) && v !== "." && v !== "..";
}

/**
 * The agent a recorded `ask` call's arguments name, when the tool would run
 * that name (a string of letters, digits, `_`, `.`, `-`, not `.`/`..`, at
 * most {@link MAX_ASK_NAME} characters), else null: a value that is not a
 * string, too long, or with other characters named no agent the tool ran.
 * The rest of the arguments is not checked.
 *
 * @param args the call's arguments (JSON text or object)
 * @returns the agent name, or null
 *
 * @example
 * ```ts
 * import { askedAgent } from "./ask_call.ts";
 * askedAgent('{"agent":"Critic","prompt":"ok?"}'); // "Critic"
 * askedAgent({ agent: "Evil\u001b[2J" }); // null
 * ```
 */
export function askedAgent(args: unknown): string | null {
  const agent = argumentsObject(args).agent;
  return isAgentName(agent) && agent.length <= MAX_ASK_NAME ? agent : null;
}

function tooLong(key: string, value: string): string {
  return `"${key}" must be at most ${MAX_ASK_NAME} characters (it names a log file), got ${value.length}`;
}

/**
 * A call's arguments as an object: parsed when JSON text, `{}` when not an
 * object (the target then comes from the tool name only).
 *
 * @param args raw arguments
 * @returns the object
 */
export function argumentsObject(args: unknown): Record<string, unknown> {
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return {};
    }
  }
  return args !== null && typeof args === "object" && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
}

/** The agent a `function_call` message asks one-shot (no conversation), or null; per message. */
const oneShotTargets = new WeakMap<Message, string | null>();

function oneShotTarget(m: Message): string | null {
  const known = oneShotTargets.get(m);
  if (known !== undefined) return known;
  const call = contentObject(m.content);
  const parsed = call?.name === "ask" ? askArguments(argumentsObject(call.arguments)) : null;
  const target = parsed && !Array.isArray(parsed) && parsed.conversation === null
    ? parsed.agent
    : null;
  oneShotTargets.set(m, target);
  return target;
}

/**
 * How many one-shot `ask` calls of `agent` (no conversation, arguments the
 * tool accepts) a chat holds: provenance names the n-th such call's log
 * `_oneshot-<n>.chat`, so the agent layer numbers a new one after them.
 *
 * @param messages the chat
 * @param agent the specialist's name
 * @returns the count
 */
export function oneShotAsks(messages: readonly Message[], agent: string): number {
  let n = 0;
  for (const m of messages) {
    if (m.role === "function_call" && oneShotTarget(m) === agent) n++;
  }
  return n;
}
