/**
 * Anthropic's extended-thinking rule, as the loopback provider enforces it
 * (R83-10): with `thinking` enabled, a request that continues a tool-use turn
 * (it ends with `tool_result`s) is refused with Anthropic's 400 unless the
 * turn's first assistant message starts with a `thinking` or
 * `redacted_thinking` block; and a `thinking` block sent anywhere must carry
 * the signature the server gave it (unmodified). The same for Bedrock's
 * InvokeModel (Anthropic bodies) and Converse (`reasoningContent`, thinking
 * enabled in `additionalModelRequestFields`). Anthropic bodies with thinking
 * must also keep the budget at 1024 tokens or more and below `max_tokens`
 * (R113-3).
 */
import type { Protocol } from "./provider_server.ts";

type Block = Record<string, unknown>;
type Turn = { role: string; content: Block[] };

/**
 * The signature the server gives a thinking text (what a real signature is
 * to a client: opaque, and only valid with that exact text).
 *
 * @param text the thinking text
 * @returns the signature
 */
export function thinkingSignature(text: string): string {
  let h = 0x811c9dc5;
  for (const c of new TextEncoder().encode(text)) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return `EqQBsig${h.toString(16).padStart(8, "0")}`;
}

/** The message of Anthropic's 400 for a turn that does not start with thinking. */
export function missingThinkingMessage(index: number, found: string): string {
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, ` +
    `but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must ` +
    "start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` " +
    "blocks). We recommend you include thinking blocks from previous turns. To avoid this " +
    "requirement, disable `thinking`. Please consult our documentation at " +
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
}

/** A Converse block in Anthropic's form (enough for the rule). */
function fromConverse(b: Block): Block {
  const rc = b.reasoningContent as Block | undefined;
  if (rc?.redactedContent !== undefined) {
    return { type: "redacted_thinking", data: rc.redactedContent };
  }
  const rt = rc?.reasoningText as Block | undefined;
  if (rt) return { type: "thinking", thinking: rt.text, signature: rt.signature };
  if (b.toolUse) return { type: "tool_use" };
  if (b.toolResult) return { type: "tool_result" };
  return { type: "text" };
}

function turnsOf(protocol: Protocol, body: Block): Turn[] {
  const list = (body.messages ?? []) as Turn[];
  return protocol === "converse"
    ? list.map((m) => ({ role: m.role, content: m.content.map(fromConverse) }))
    : list;
}

function thinkingEnabled(protocol: Protocol, body: Block): boolean {
  const fields = protocol === "converse" ? body.additionalModelRequestFields as Block : body;
  const t = (fields?.thinking ?? fields?.reasoning_config) as Block | undefined;
  return t?.type === "enabled";
}

/**
 * Anthropic's limits on a thinking budget (R113-3): at least 1024 tokens, and
 * below `max_tokens` (which every Messages request carries).
 */
function budgetViolation(body: Block): string | null {
  const t = body.thinking as Block | undefined;
  if (t?.type !== "enabled") return null;
  const budget = Number(t.budget_tokens);
  if (!(budget >= 1024)) {
    return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
  }
  if (!(Number(body.max_tokens) > budget)) {
    return "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our " +
      "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking" +
      "#max-tokens-and-context-window-size";
  }
  return null;
}

const onlyResults = (m: Turn) => m.content.every((b) => b.type === "tool_result");

/**
 * What the provider refuses in a request under the rule, as its error
 * message; null for a request it takes.
 *
 * @param protocol `anthropic`, `bedrock` (InvokeModel) or `converse`
 * @param body the request body
 * @returns the message, or null
 */
export function thinkingRuleViolation(protocol: Protocol, body: Block): string | null {
  if (!["anthropic", "bedrock", "converse"].includes(protocol)) return null;
  const budget = protocol === "converse" ? null : budgetViolation(body);
  if (budget) return budget;
  const turns = turnsOf(protocol, body);
  for (const [i, m] of turns.entries()) {
    for (const [j, b] of m.content.entries()) {
      if (b.type === "thinking" && b.signature !== thinkingSignature(String(b.thinking))) {
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  const last = turns.at(-1);
  if (!thinkingEnabled(protocol, body) || !last || last.role !== "user" || !onlyResults(last)) {
    return null;
  }
  // the tool-use turn begins after the last user message that is not only tool results
  let start = turns.length - 1;
  while (start > 0 && (turns[start - 1]!.role !== "user" || onlyResults(turns[start - 1]!))) {
    start--;
  }
  const first = turns[start];
  const type = String(first?.content[0]?.type);
  if (first?.role !== "assistant" || type === "thinking" || type === "redacted_thinking") {
    return null;
  }
  const message = missingThinkingMessage(start, type);
  return protocol === "converse" ? `The model returned the following errors: ${message}` : message;
}
