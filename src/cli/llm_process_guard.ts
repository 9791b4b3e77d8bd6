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
import type { Message } from "../chat/types.ts";
import { untrustedMessages } from "../chat/untrusted.ts";
import { RUNTIME_KEYS } from "../llm/ask_types.ts";
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
 * `{role, content}`; only plain message roles (the rule of
 * `chat/untrusted.ts`, which an MCP server holds its callers' chat text to).
 *
 * @param question the request's question
 * @returns the messages
 * @throws ScoutError `invalid_input` for another shape or a refused role
 */
export function workerMessages(question: unknown): Message[] {
  return untrustedMessages(question, {
    label: `Bad relay request: "question"`,
    from: "a queue",
    why: "the worker compiles nothing and reads no files",
  });
}
