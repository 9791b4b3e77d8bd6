/**
 * A streamed Chat Completions reply assembled into one completion object
 * (`inference.md` §3.7): content deltas passed on, reasoning and tool-call
 * fragments joined, usage from the chunk that carries it (reported as it
 * arrives, R93-1), the choice's `finish_reason` kept.
 *
 * Tool-call fragments are grouped as servers really send them ([TS-FIX],
 * R83-3): OpenAI numbers each call with `index`; Ollama's OpenAI-compatible
 * API sends every call of a parallel batch whole with `index: 0`, and older
 * Ollama and Gemini's compatible API send no `index`. A fragment whose `id`
 * differs from the id of the call at its index (or, without an index, from
 * the last call's) starts a new call; a fragment with neither continues the
 * last call, unless it names a tool while that call already has its name
 * (servers that send each call whole, without index or id).
 *
 * @module
 */

/**
 * The reasoning text of a message or a stream delta: `reasoning_content`
 * (DeepSeek, older vLLM), else `reasoning` (vLLM, OpenRouter, Groq, Ollama),
 * one of them only, as servers moving between the names send both.
 *
 * @param m a message or delta
 * @returns the text, or `""`
 */
export function reasoningOf(m: Record<string, unknown>): string {
  if (typeof m.reasoning_content === "string" && m.reasoning_content !== "") {
    return m.reasoning_content;
  }
  return typeof m.reasoning === "string" ? m.reasoning : "";
}

/** One tool call being assembled. */
interface CallSlot {
  id?: string;
  name: string;
  arguments: string;
}

/** The tool calls of a stream: in order, and the call each `index` names now. */
interface Calls {
  list: CallSlot[];
  byIndex: Map<number, CallSlot>;
}

/** Whether a fragment without index or id names a tool while the last call has its name. */
function namesAnother(tc: Record<string, unknown>, last: CallSlot): boolean {
  const name = (tc.function as Record<string, unknown> | undefined)?.name;
  return typeof name === "string" && name !== "" && last.name !== "";
}

/** The call a fragment belongs to: an existing one, or a new one it starts. */
function callOf(calls: Calls, tc: Record<string, unknown>): CallSlot {
  const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
  const index = typeof tc.index === "number" ? tc.index : undefined;
  const current = index === undefined ? calls.list.at(-1) : calls.byIndex.get(index);
  const continues = id === undefined
    ? index !== undefined || !current || !namesAnother(tc, current)
    : current?.id === undefined || current.id === id;
  if (current && continues) return current;
  const slot: CallSlot = { name: "", arguments: "" };
  calls.list.push(slot);
  if (index !== undefined) calls.byIndex.set(index, slot);
  return slot;
}

/** Adds one tool-call fragment to its call. */
function addFragment(calls: Calls, tc: Record<string, unknown>): void {
  const slot = callOf(calls, tc);
  if (typeof tc.id === "string" && tc.id !== "") slot.id = tc.id;
  const fn = (tc.function ?? {}) as Record<string, unknown>;
  if (typeof fn.name === "string") slot.name += fn.name;
  if (typeof fn.arguments === "string") slot.arguments += fn.arguments;
}

/**
 * Assembles streamed chunks into a completion object.
 *
 * @param chunks the chunks
 * @param onDelta receives content deltas
 * @param progress counts the chunks received
 * @param onUsage receives the usage chunk's usage as it arrives: it comes
 *   before `[DONE]`, so a stream cut after it still records what it cost
 * @returns the completion, or null when no chunk finished a choice
 */
export async function assembleChatStream(
  chunks: AsyncIterable<Record<string, unknown>>,
  onDelta?: (text: string) => void,
  progress?: { events: number },
  onUsage?: (usage: unknown) => void,
): Promise<Record<string, unknown> | null> {
  let id: unknown;
  let usage: unknown;
  let content = "";
  let reasoning = "";
  let finished: unknown = null;
  const calls: Calls = { list: [], byIndex: new Map() };
  for await (const chunk of chunks) {
    if (progress) progress.events++;
    id ??= chunk.id;
    if (chunk.usage) {
      usage = chunk.usage;
      onUsage?.(usage);
    }
    for (const choice of (chunk.choices ?? []) as Record<string, unknown>[]) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      if (typeof delta.content === "string" && delta.content !== "") {
        content += delta.content;
        onDelta?.(delta.content);
      }
      reasoning += reasoningOf(delta);
      for (const tc of (delta.tool_calls ?? []) as Record<string, unknown>[]) {
        addFragment(calls, tc);
      }
      if (choice.finish_reason) finished = choice.finish_reason;
    }
  }
  if (!finished) return null;
  const message: Record<string, unknown> = { role: "assistant", content: content || null };
  if (reasoning) message.reasoning_content = reasoning;
  const toolCalls = calls.list.map((c) => ({
    ...(c.id ? { id: c.id } : {}),
    type: "function",
    function: { name: c.name, arguments: c.arguments },
  }));
  if (toolCalls.length) message.tool_calls = toolCalls;
  const out: Record<string, unknown> = {
    id,
    choices: [{ index: 0, message, finish_reason: finished }],
  };
  if (usage) out.usage = usage;
  return out;
}
