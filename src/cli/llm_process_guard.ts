/**
 * What a queue worker takes from a request (`llm process`, `llm
 * process_queries`; [TS-FIX] R97-2): a queue may be shared, so a request is
 * data from a client the worker does not trust.
 *
 * - Options: the model, generation parameters (any option the pipeline does
 *   not read goes to the provider as a parameter), `format`, `reasoning*` /
 *   `text*`, the prompt-strategy numbers, `backend` (not `relay`: it only
 *   picks the protocol and which of the worker's own providers answers, at
 *   the worker's url with the worker's key) and `tools` as definitions only.
 *   Everything else the pipeline reads — routing and credentials (`url`,
 *   `key`, `endpoint`, `relay`, `server`, `ssh_command`, AWS settings…),
 *   `agent`, cache and log switches, runtime hooks — and any path-,
 *   credential- or header-like name is dropped with one warning each.
 * - Messages: plain messages only. A chat-text question is parsed, never
 *   compiled; roles that compile, load tools or set options (`mcp:`, `file:`,
 *   `exec_task:`, `option:`, `endpoint:`…) and local `image:`/`pdf:` paths
 *   fail the request.
 *
 * @module
 */
import { parse } from "../chat/parse.ts";
import type { Message } from "../chat/types.ts";
import { ScoutError } from "../errors.ts";
import { RUNTIME_KEYS } from "../llm/ask_types.ts";
import { isUrl } from "../llm/format.ts";
import { PIPELINE_KEYS } from "../llm/params.ts";
import { setOwn } from "../util/own_record.ts";

/** Pipeline keys a client may set. */
const KEPT: ReadonlySet<string> = new Set([
  "model",
  "backend",
  "format",
  "tools",
  "reasoning",
  "reasoning_options",
  "text",
  "text_options",
  "websearch",
  "previous_response_id",
  "max_tool_rounds",
  "max_content_length",
  "tool_concurrency",
]);

/** Names that hold a path, a credential or headers, whatever reads them. */
const RISKY_NAME =
  /(^|_)(path|paths|dir|directory|file|files|key|token|secret|password|headers?|url|endpoint|host|server|command)($|_)/i;

/** Roles a queued question may hold. */
const MESSAGE_ROLES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "developer",
  "function_call",
  "function_call_output",
  "websearch",
  "meta",
  "previous_response_id",
]);

function invalid(message: string): ScoutError {
  return new ScoutError("invalid_input", `Bad relay request: ${message}`);
}

function kept(key: string, value: unknown): boolean {
  if (key === "backend") return String(value).trim() !== "relay";
  if (KEPT.has(key)) return true;
  if (PIPELINE_KEYS.has(key) || RUNTIME_KEYS.has(key)) return false;
  return !RISKY_NAME.test(key);
}

/** Tool definitions as data: an entry's `definition`, or the item itself. */
function definitionsOnly(tools: unknown): unknown[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools
    .filter((t) => t !== null && typeof t === "object")
    .map((t) => "definition" in t ? (t as { definition: unknown }).definition : t);
}

/**
 * The options of a request a worker uses (see the module note).
 *
 * @param options the request's options
 * @param warn warning sink (one warning per dropped option, naming it)
 * @returns the kept options
 */
export function workerOptions(
  options: Record<string, unknown>,
  warn: (message: string) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (!kept(key, value)) {
      warn(
        `relay request: option "${key}" dropped (a queue client sets the model and parameters; ` +
          `routing, credentials and paths are the worker's)`,
      );
    } else if (key === "tools") {
      const defs = definitionsOnly(value);
      if (defs) out.tools = defs;
    } else setOwn(out, key, value); // a parameter `__proto__` is kept, under Bun too
  }
  return out;
}

/**
 * The messages of a request: chat text parsed (not compiled), or a list of
 * `{role, content}`; only plain message roles.
 *
 * @param question the request's question
 * @returns the messages
 * @throws ScoutError `invalid_input` for another shape or a refused role
 */
export function workerMessages(question: unknown): Message[] {
  let messages: Message[];
  if (typeof question === "string") messages = parse(question);
  else if (
    Array.isArray(question) &&
    question.every((m) => m && typeof m === "object" && typeof m.role === "string")
  ) {
    messages = question.map((m) => ({ role: m.role, content: m.content ?? "" }));
  } else throw invalid(`"question" must be chat text or a list of {role, content}`);
  for (const m of messages) {
    const media = (m.role === "image" || m.role === "pdf") && isUrl(String(m.content).trim());
    if (MESSAGE_ROLES.has(m.role) || media) continue;
    throw invalid(
      `"${m.role}:" messages are not accepted from a queue (the worker compiles nothing and ` +
        `reads no files; allowed: ${[...MESSAGE_ROLES].join(", ")}, image/pdf urls)`,
    );
  }
  return messages;
}
