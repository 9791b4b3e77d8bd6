/**
 * Signed reasoning blocks carried with the messages of their reply (R83-10).
 * With extended thinking and tools, Anthropic (and Bedrock's Anthropic
 * models) reject the next round unless the assistant turn that made the tool
 * call starts with the `thinking` / `redacted_thinking` blocks of its reply,
 * unmodified, signature included; blocks of finished turns may be left out.
 *
 * A backend gives a text or call item the blocks that came right before it
 * ({@link placeThinking}); the loop puts them on the message it makes of the
 * item ({@link markThinking}); the request builder sends them again in front
 * of that message's block ({@link thinkingOf}). On the message the blocks are
 * a non-enumerable symbol-keyed property, as `written_at.ts`'s mark: `print`,
 * JSON, cache keys and `deepStrictEqual` never see it, so nothing reaches the
 * chat file (the Ruby original keeps no thinking either). The inference
 * cache stores them with the round's items, so a replayed round gives them
 * back. Spreads and `structuredClone` drop them, which only loses what the
 * provider lets a request leave out once the turn is over.
 *
 * @module
 */
import type { ReplyItem, ThinkingBlock } from "./types.ts";

/** The property key (registered: survives bundles and realms). */
export const THINKING: unique symbol = Symbol.for("scout-ai.thinking");

/**
 * The thinking blocks a message carries, if any.
 *
 * @param m a message (or any object)
 * @returns the blocks, or undefined
 *
 * @example
 * ```ts
 * import { markThinking, thinkingOf } from "./thinking.ts";
 * const block = { type: "thinking" as const, thinking: "t", signature: "s" };
 * const m = markThinking({ role: "function_call", content: "{}" }, [block]);
 * thinkingOf(m); // [block]
 * JSON.stringify(m); // '{"role":"function_call","content":"{}"}'
 * ```
 */
export function thinkingOf(m: object): readonly ThinkingBlock[] | undefined {
  return (m as { [THINKING]?: readonly ThinkingBlock[] })[THINKING];
}

/**
 * Puts thinking blocks on a message (non-enumerable); none leaves it as is.
 *
 * @param m the message (modified)
 * @param blocks the blocks that came before it in its reply
 * @returns `m`
 */
export function markThinking<T extends object>(m: T, blocks?: readonly ThinkingBlock[]): T {
  if (!blocks?.length) return m;
  Object.defineProperty(m, THINKING, { value: blocks, configurable: true, writable: true });
  return m;
}

/**
 * A reply's items from its content in order, thinking blocks among them: each
 * text or call item gets the blocks right before it. The blocks are kept only
 * in a reply with a call (a tool-use turn, the only one whose blocks must go
 * back); blocks after the last item are dropped.
 *
 * @param sequence items and thinking blocks, in reply order
 * @returns the items
 *
 * @example
 * ```ts
 * import { placeThinking } from "./thinking.ts";
 * const block = { type: "thinking" as const, thinking: "t", signature: "s" };
 * placeThinking([block, { type: "call", name: "f", arguments: {}, id: "c" }]);
 * // [{ type: "call", name: "f", arguments: {}, id: "c", thinking: [block] }]
 * placeThinking([block, { type: "text", text: "hi" }]); // [{ type: "text", text: "hi" }]
 * ```
 */
export function placeThinking(sequence: readonly (ReplyItem | ThinkingBlock)[]): ReplyItem[] {
  const keep = sequence.some((x) => x.type === "call");
  const items: ReplyItem[] = [];
  let pending: ThinkingBlock[] = [];
  for (const x of sequence) {
    if (x.type === "thinking" || x.type === "redacted_thinking") {
      pending.push(x);
      continue;
    }
    if (keep && pending.length && (x.type === "text" || x.type === "call")) {
      items.push({ ...x, thinking: pending });
      pending = [];
    } else items.push(x);
  }
  return items;
}
