/**
 * `socialize` (`agents.md` §3.1, §3.3, §3.4, §7.1, §7.2): gives an agent the
 * `ask` tool. A call names a specialist (loaded once per caller as a
 * template), a prompt (one user message, never parsed, §3.6), an optional
 * conversation (reused to continue; omitted ⇒ a fresh one-shot clone keyed
 * `<Agent>/_oneshot-<n>`), and what the clone inherits when its
 * conversation starts (`none`, `tools`, `conversation`). The handler returns
 * the pending call as `{agent}`; the tool loop runs it through the runner.
 *
 * @module
 */
import process from "node:process";
import {
  askArguments,
  type AskCall,
  type InheritMode,
  MAX_ASK_NAME,
  oneShotAsks,
} from "../chat/ask_call.ts";
import type { Message } from "../chat/types.ts";
import { keepWrittenAt } from "../chat/written_at.ts";
import { isScoutError, ScoutError } from "../errors.ts";
import { setOwn } from "../util/own_record.ts";
import { newSession } from "../llm/meta_record.ts";
import type { SpecialistRunner } from "../tools/agent_results.ts";
import type { ToolEntry } from "../tools/types.ts";
import { addAgentTool, addBoundTool, rebindAgentTools } from "./bound_tools.ts";
import { checkAgentArg } from "./agent_shape.ts";
import { conversationSoFar } from "./since_start.ts";
import { keepLift, optionsUnlifted } from "./lift.ts";
import { specialistCall, specialistRunner } from "./specialists.ts";
import { resumed } from "./resume.ts";
import { nextDepth, setDepth, spendAgentCall } from "./depth.ts";
import type { Agent, AgentOptions, LoadAgentFn } from "./types.ts";

export { addAgentTool, addBoundTool, askArguments };
export type { AskCall, InheritMode };

/** Option keys never passed on to specialists (§3.3). */
const PRIVATE = [
  "agent",
  "client",
  "current_meta",
  "format",
  "messages",
  "no_ask_override",
  "previous_response_id",
  "process",
  "return_messages",
  "tool_choice",
  "tools",
];

/** Parameters of the `ask` tool (§3.1). */
export const ASK_PARAMETERS = {
  type: "object",
  properties: {
    agent: {
      type: "string",
      maxLength: MAX_ASK_NAME,
      description: "Name of the specialist agent to ask",
    },
    prompt: {
      type: "string",
      description: "Plain text for the specialist, sent as one user message",
    },
    conversation: {
      type: "string",
      pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$",
      maxLength: MAX_ASK_NAME,
      description:
        "Optional conversation id. Omit it for an independent one-shot call; reuse an id with the same agent to continue that conversation",
    },
    inherit: {
      type: "string",
      enum: ["none", "tools", "conversation"],
      default: "tools",
      description:
        "Context copied from you only when the call or conversation starts: none, your tools, or your conversation so far",
    },
  },
  required: ["agent", "prompt"],
  additionalProperties: false,
};

const ASK_DESCRIPTION =
  "Ask a specialist agent. You get back only its text answer. Without `conversation` each call is independent; " +
  "reusing a conversation id with the same agent continues that conversation. `inherit` applies only when a " +
  "conversation starts; the specialist's own start chat always comes first.";

let loader: LoadAgentFn | null = null;

/**
 * Installs the agent loader specialists are loaded with (the directory
 * loader; injected so `socialize.ts` and `load.ts` need not import each other).
 *
 * @param fn the loader, or null
 */
export function setSpecialistLoader(fn: LoadAgentFn | null): void {
  loader = fn;
}

/**
 * Deep copy (§3.3): plain objects, arrays and Maps are copied (a message
 * keeps its file and line, `written_at.ts`); functions and others are shared.
 *
 * @param v any value
 * @returns the copy
 */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, deepCopy(x)])) as T;
  if (typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    // defined, not assigned: under Bun a key `__proto__` (a model's tool arguments, an
    // option) was dropped, an object under it made the copy's prototype
    for (const [k, x] of Object.entries(v)) setOwn(out, k, deepCopy(x));
    return keepWrittenAt(v, out) as T;
  }
  return v;
}

/**
 * The options specialists are loaded with (§3.3): the caller's options
 * overlaid with `socialize`'s, minus the private keys.
 *
 * @param caller the calling agent
 * @param extra options given to `socialize`
 * @returns plain options
 */
export function socialOptions(caller: Agent, extra: AgentOptions = {}): AgentOptions {
  // the caller's agent options: not the option lines lifted from its start chat
  const out = deepCopy({ ...optionsUnlifted(caller), ...extra });
  for (const k of PRIVATE) delete out[k];
  return out;
}

/**
 * A clone of a template for one conversation (§3.3): workflow, knowledge
 * base, processException, path, job and runtime hooks shared; start chat and
 * options deep-copied (which of them were lifted from the start chat too);
 * no society, chats or live chat. The clone gets its own
 * token session ("sessions never flow to specialists"), so the `_s` totals of
 * its meta records count its own inferences only, not the caller's.
 *
 * @param template the loaded specialist
 * @returns the clone
 */
export function cloneAgent(template: Agent): Agent {
  const known = cloning?.get(template);
  if (known) return known;
  const outer = cloning === null;
  cloning ??= new Map();
  try {
    const clone: Agent = {
      ...template,
      startChat: deepCopy(template.startChat),
      options: deepCopy(template.options),
      society: {},
      chats: {},
      currentChat: null,
      runtime: { ...template.runtime, session: newSession() },
    };
    cloning.set(template, clone);
    keepLift(template, clone);
    rebindAgentTools(clone);
    return clone;
  } finally {
    if (outer) cloning = null;
  }
}

/**
 * The clones made by the clone in progress, by template: agents that hand off
 * to each other (triage ↔ billing) clone into one pair, each handing off to
 * the other's copy, instead of cloning each other without end.
 */
let cloning: Map<Agent, Agent> | null = null;

const TOOL_ROLES = new Set(["introduce", "tool", "mcp", "kb"]);

/**
 * What a new conversation inherits from its caller (§3.4).
 *
 * @param caller the calling agent (its live chat, without the in-flight call)
 * @param mode the inheritance mode
 * @param chat the caller's chat to read (default: its live chat)
 * @returns deep copies of the inherited messages
 */
export function inherited(
  caller: Agent,
  mode: InheritMode,
  chat: readonly Message[] = caller.currentChat ?? caller.startChat,
): Message[] {
  if (mode === "none") return [];
  if (mode === "tools") return deepCopy(chat.filter((m) => TOOL_ROLES.has(m.role)));
  // not the caller's meta records: its token records and job references are its own
  // (provenance would credit them to the specialist's log), and no request sends them
  return deepCopy(conversationSoFar(caller, chat).filter((m) => m.role !== "meta"));
}

/** Loads in flight, per caller: concurrent first calls load a specialist once. */
const loading = new WeakMap<Agent, Map<string, Promise<Agent>>>();

/** The caller's template of `name`: its own (an agent called `toString` is no Object member). */
function member(caller: Agent, name: string): Agent | undefined {
  return Object.hasOwn(caller.society, name) ? caller.society[name] : undefined;
}

async function template(caller: Agent, name: string, options: AgentOptions): Promise<Agent> {
  const known = member(caller, name);
  if (known) return known;
  const pending = loading.get(caller) ?? new Map<string, Promise<Agent>>();
  loading.set(caller, pending);
  let load = pending.get(name);
  if (!load) {
    load = loadTemplate(caller, name, options).finally(() => pending.delete(name));
    pending.set(name, load);
  }
  const loaded = await load;
  const first = member(caller, name);
  if (first) return first; // loaded meanwhile by another path
  setOwn(caller.society, name, loaded);
  return loaded;
}

async function loadTemplate(caller: Agent, name: string, options: AgentOptions): Promise<Agent> {
  if (!loader) throw notFound(name);
  try {
    return await loader(name, {
      options: socialOptions(caller, options),
      runtime: caller.runtime,
      ...(caller.runtime.cwd !== undefined ? { cwd: caller.runtime.cwd } : {}),
      ...(caller.runtime.env !== undefined ? { env: caller.runtime.env } : {}),
    });
  } catch (e) {
    // the model sees the tool output: no search roots, no double "No agent found"
    if (isScoutError(e, "agent_not_found")) throw notFound(name, e);
    throw new ScoutError("agent_load", `Cannot load agent ${name}: ${(e as Error).message}`, {
      agent: name,
      cause: e,
    });
  }
}

function notFound(name: string, cause?: unknown): ScoutError {
  return new ScoutError("agent_not_found", `No agent found with name ${name}`, {
    agent: name,
    ...(cause ? { cause } : {}),
  });
}

/**
 * The key of a new one-shot conversation: `_oneshot-<n>`, n after the one-shot
 * calls of `name` already in the caller's chat (a chat task's start chat holds
 * earlier jobs' calls; provenance counts them all to name the n-th call's log)
 * and after the clones of this ask's earlier rounds and calls.
 */
function oneShotKey(caller: Agent, name: string): string {
  let n = oneShotAsks(caller.currentChat ?? [], name) + 1;
  while (caller.chats[`${name}/_oneshot-${n}`]) n++;
  return `${name}/_oneshot-${n}`;
}

/**
 * Sets the specialist runner on an agent's runtime (shared by its clones)
 * unless one is set.
 *
 * @param agent the agent
 */
export function ensureRunner(agent: Agent): void {
  agent.runtime.runSpecialists ??= runnerFor(agent);
}

/**
 * The default specialist runner of an agent: `ASK_AGENTS` from its runtime
 * env, else the process env.
 *
 * @param agent the agent
 * @returns a runner
 */
export function runnerFor(agent: Agent): SpecialistRunner {
  return specialistRunner({ env: agent.runtime.env ?? process.env });
}

/**
 * Registers the `ask` tool on an agent (§3.1).
 *
 * @param agent the caller
 * @param options agent options for the specialists (over the caller's)
 * @throws ScoutError `invalid_input` when `agent` is not an agent
 *
 * @example
 * ```ts
 * import { createAgent } from "./agent.ts";
 * import { socialize } from "./socialize.ts";
 * const boss = createAgent({ name: "Boss" });
 * socialize(boss);
 * Object.keys(boss.options.tools as object); // ["ask"]
 * ```
 */
export function socialize(agent: Agent, options: AgentOptions = {}): void {
  checkAgentArg(agent, "socialize");
  ensureRunner(agent);
  const extra = deepCopy(options);
  addBoundTool(agent, "ask", (owner) => askTool(owner, extra));
}

/**
 * The call's arguments (§3.1 steps 1–2), and one rule of the port's log layout:
 * conversation `x` is logged as `society/<Agent>/x.chat` and its own society
 * under `society/<Agent>/x/`, so an id ending in `.chat` would put a directory
 * where `x`'s log goes (and fail the job's logs).
 */
function askCallOf(args: Record<string, unknown>): ReturnType<typeof askArguments> {
  const call = askArguments(args);
  if (Array.isArray(call) || !call.conversation?.endsWith(".chat")) return call;
  return [
    `"conversation" must not end in ".chat" (its log is "<id>.chat"), got ${
      JSON.stringify(call.conversation)
    }`,
  ];
}

/** Clones started by `ask` (a conversation key held by anything else is taken). */
const askClones = new WeakSet<Agent>();

function askTool(caller: Agent, extra: AgentOptions): ToolEntry {
  return {
    definition: {
      type: "function",
      function: { name: "ask", description: ASK_DESCRIPTION, parameters: ASK_PARAMETERS },
    },
    validate: (args) => {
      const r = askCallOf(args);
      return Array.isArray(r) ? r : [];
    },
    impl: async (_name, args) => {
      const call = askCallOf(args);
      if (Array.isArray(call)) throw new Error(call.join("; "));
      const tpl = await template(caller, call.agent, extra);
      const key = call.conversation === null
        ? oneShotKey(caller, call.agent)
        : `${call.agent}/${call.conversation}`;
      let clone = caller.chats[key];
      if (clone && !askClones.has(clone)) {
        throw new Error(
          `Conversation "${call.conversation}" with ${call.agent} is taken by a hand-off agent; use another conversation id`,
        );
      }
      spendAgentCall(caller, call.agent);
      if (!clone) {
        const depth = nextDepth(caller, call.agent);
        clone = cloneAgent(tpl);
        setDepth(clone, depth);
        clone.currentChat = [
          ...deepCopy(clone.startChat),
          ...(call.conversation === null
            ? null
            : resumed(caller, call.agent, call.conversation, (m, c) => inherited(caller, m, c))) ??
            inherited(caller, call.inherit),
        ];
        askClones.add(clone);
        caller.chats[key] = clone;
      }
      // the output records the conversation the call ran in: a one-shot's log name cannot be
      // told from the call, and a later run rebuilding a named one starts where it existed
      return {
        agent: specialistCall(clone, call.prompt, { conversation: key.split("/").at(-1)! }),
      };
    },
  } as ToolEntry;
}
