/**
 * `delegate` (`agents.md` §3.5, [TS-FIX] §7.9): a `hand_off_to_<name>` tool
 * that passes a message to one live agent shared by all calls. Unlike the
 * Ruby, the hand-off runs through the specialist runner, so the agent is
 * logged as `society/<name>/default.chat` (it sits in the caller's `chats`
 * under `<name>/default`) and its inferences become `agent_meta` receipts.
 * A `new_conversation` keeps the conversation it ends in that log and logs
 * the new one as `society/<name>/_default-<n>.chat` (n from 2), named on the
 * call's output (`"conversation"`). A later run (`agent ask -c F -o F`)
 * continues the conversation the caller's chat shows (`resumedHandOff`).
 * The agent gets the options it lacks from the caller when handed to
 * (`hand_off_options.ts`: `-e`/`-m` reach it; its own start-chat lines win).
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { checkAgentArg } from "./agent_shape.ts";
import type { ToolEntry, ToolFunction } from "../tools/types.ts";
import { addAgentTool, addBoundTool, standsFor } from "./bound_tools.ts";
import { cloneAgent, ensureRunner } from "./socialize.ts";
import { waitsOnThis } from "./agent.ts";
import { sinceStart } from "./since_start.ts";
import { carriedAs, carryOver } from "./carried_over.ts";
import { inheritCallerOptions } from "./hand_off_options.ts";
import { specialistCall } from "./specialists.ts";
import { handOffRestarts, type ResumedHandOff, resumedHandOff } from "./resume.ts";
import type { Agent, DelegateOptions } from "./types.ts";

export type { DelegateOptions };

/** Parameters of a hand-off tool (§3.5). */
export const HAND_OFF_PARAMETERS = {
  type: "object",
  properties: {
    message: { type: "string", description: "The message for the agent" },
    new_conversation: {
      type: "boolean",
      description: "Reset the agent's conversation history before sending the message",
      default: false,
    },
  },
  required: ["message"],
};

/**
 * Registers `hand_off_to_<name>` on `caller`, handing messages to `agent`.
 *
 * @param caller the agent that gets the tool
 * @param agent the agent messages are handed to (one live instance)
 * @param name the name (tool name and log name)
 * @param description what the tool is for, for the model
 * @param options tool name and custom handler
 * @throws ScoutError `invalid_input`: `caller` or `agent` is not an agent
 *   (an un-awaited `loadAgent`, a name…), or `name` is not a name
 *
 * @example
 * ```ts
 * import { createAgent } from "./agent.ts";
 * import { delegate } from "./delegate.ts";
 * const boss = createAgent({ name: "Boss" });
 * delegate(boss, createAgent({ name: "Worker" }), "worker", "Hand work to the worker");
 * Object.keys(boss.options.tools as object); // ["hand_off_to_worker"]
 * ```
 */
export function delegate(
  caller: Agent,
  agent: Agent,
  name: string,
  description: string,
  options: DelegateOptions = {},
): void {
  // when agent.ts runs, not in the tool call: an un-awaited loadAgent or a name (R131-1)
  checkAgentArg(caller, "delegate", "argument 1 (the caller)");
  checkAgentArg(agent, "delegate", "argument 2 (the agent handed to)");
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name === "." || name === "..") {
    throw new ScoutError("invalid_input", `Cannot delegate to "${name}": not an agent name`);
  }
  ensureRunner(caller);
  const toolName = options.toolName ?? `hand_off_to_${name}`;
  const definition = {
    type: "function",
    function: { name: toolName, description, parameters: HAND_OFF_PARAMETERS },
  };
  if (options.handler) {
    addAgentTool(caller, toolName, { definition, impl: options.handler } as ToolEntry);
    return;
  }
  // a clone of `caller` (a specialist whose agent.ts delegates) hands off to its own copy;
  // the agent a task-route job runs for `caller` stands in for it: the live agent
  addBoundTool(caller, toolName, (owner) => ({
    definition,
    impl: handOff(owner, standsFor(owner) === caller ? agent : cloneAgent(agent), name, toolName),
  } as ToolEntry));
}

function handOff(caller: Agent, agent: Agent, name: string, tool: string): ToolFunction {
  return (_n, params) => {
    if (typeof params.message !== "string") throw new Error(`"message" must be a string`);
    if (waitsOnThis(agent)) {
      // a hand-back to an agent whose turn waits on this one (a delegate cycle): its live
      // chat is mid-turn, and each hand-back would nest another turn without end
      throw new Error(
        `Cannot hand off to ${name}: its turn is still running (it is waiting on this conversation); answer instead, and your answer returns to it`,
      );
    }
    const live = liveKey(caller, agent, name);
    const earlier = live === undefined ? earlierConversation(caller, agent, tool) : null;
    const key = live ?? `${name}/${earlier?.conversation ?? "default"}`;
    const held = caller.chats[key];
    if (held && held !== agent) {
      throw new Error(
        `Conversation "${
          key.slice(name.length + 1)
        }" with ${name} is taken by another agent; rename the hand-off`,
      );
    }
    if (earlier !== null) rebuild(agent, earlier.messages);
    caller.chats[key] = agent;
    // what it lacks comes from its caller (`-e`/`-m`), as for a specialist `ask` loads
    inheritCallerOptions(agent, caller);
    const restart = params.new_conversation === true;
    return {
      agent: specialistCall(agent, params.message, {
        restart,
        begin: () => conversationOf(caller, agent, { name, tool }, restart),
      }),
    };
  };
}

/** The key the live agent is logged under (`<name>/default` until a restart moves it on), if any. */
function liveKey(caller: Agent, agent: Agent, name: string): string | undefined {
  for (const [k, v] of Object.entries(caller.chats)) {
    if (v === agent && k.startsWith(`${name}/`)) return k;
  }
  return undefined;
}

/** Chats a hand-off rebuilt, with their length then: nothing has run in them while unchanged. */
const rebuilt = new WeakMap<Message[], number>();

/**
 * The conversation a hand-off's first call from `caller` in this process goes
 * on in: an agent that has not talked yet continues the one the caller's chat
 * shows (an earlier run's, `agent ask -c F -o F`: the agent lived in that
 * process only; `resume.ts`), so its history is kept until a
 * `new_conversation`, as in one process (§3.5). An agent that has talked
 * (shared with another caller) keeps its chat (null).
 */
function earlierConversation(caller: Agent, agent: Agent, tool: string): ResumedHandOff | null {
  return sinceStart(agent).length === 0 ? resumedHandOff(caller, tool) : null;
}

/** Gives `agent` its start chat and `messages`, rebuilt (see {@link onlyRebuilt}). */
function rebuild(agent: Agent, messages: Message[]): void {
  agent.currentChat = [...agent.startChat, ...messages];
  rebuilt.set(agent.currentChat, agent.currentChat.length);
}

/** Whether nothing has run in `agent`'s chat since a hand-off rebuilt it. */
function onlyRebuilt(agent: Agent): boolean {
  const chat = agent.currentChat;
  return chat !== null && rebuilt.get(chat) === chat.length;
}

/**
 * The conversation a hand-off runs in, when it runs (calls in one batch run
 * in order): a restart of a conversation that holds anything leaves it,
 * as it was, under its key (a record sharing the agent's fields but this
 * chat and these specialists), so its log stays, and the agent goes on under
 * `<name>/_default-<n>` (n from 2) — recorded on the output, as a one-shot's
 * conversation is; the first conversation is not (`default`).
 */
function conversationOf(
  caller: Agent,
  agent: Agent,
  { name, tool }: { name: string; tool: string },
  restart: boolean,
): string | undefined {
  let key = liveKey(caller, agent, name) ?? `${name}/default`;
  if (restart && sinceStart(agent).length > 0) {
    if (onlyRebuilt(agent)) {
      // an earlier run's conversation, ended before anything ran in it here: its log is that
      // run's, not this one's
      delete caller.chats[key];
    } else {
      const ended = { ...agent, chats: { ...agent.chats } };
      // the ended conversation is the caller's as the live one was; the live one carries its
      // specialists on, logged under the new conversation only once it runs them
      carriedAs(caller, agent, ended);
      carryOver(agent, ended);
      caller.chats[key] = ended;
    }
    // numbered after the conversations of this run and those the caller's chat records
    let n = handOffRestarts(caller.currentChat ?? [], tool) + 1;
    while (caller.chats[`${name}/_default-${n}`]) n++;
    key = `${name}/_default-${n}`;
    caller.chats[key] = agent;
  }
  const conversation = key.slice(name.length + 1);
  return conversation === "default" ? undefined : conversation;
}
