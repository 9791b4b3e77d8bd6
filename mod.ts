/**
 * scout-ai — a Deno-first agent harness: plain-text `.chat` conversations,
 * swappable LLM backends, tools, agents, a workflow runner that persists every
 * run as a job, context strategies, and a provenance walker.
 *
 * Chats are plain data (`Message[]`); everything else is functions over them.
 *
 * @example
 * ```ts
 * import { parse, print } from "./mod.ts";
 * const chat = parse("system:\n\nBe brief\n\nuser: hi");
 * print(chat.slice(1)); // "\nsystem:\n\nBe brief\n\nuser:\n\nhi"
 * ```
 *
 * @module
 */
export * from "./src/errors.ts";
// Where library warnings go: a call's `warn`, else `withWarningSink`'s, else `setWarningSink`'s,
// else stderr (`scout-ai: warning: …`); each told once per sink.
export {
  currentWarningSink,
  setWarningSink,
  stderrWarning,
  type WarningSink,
  withWarningSink,
} from "./src/util/warn_once.ts";
export * from "./src/chat/mod.ts";
export * from "./src/prompt/mod.ts";
export * from "./src/workflow/mod.ts";
export * from "./src/provenance/mod.ts";
export * from "./src/config/mod.ts";
export * from "./src/llm/mod.ts";
export * from "./src/tools/mod.ts";
export * from "./src/agent/mod.ts";
export * from "./src/chat_analyst/mod.ts";

// MCP line parsing and result normalisation. Sessions and serving are internal (reached through
// `mcp:` lines and `scout-ai workflow mcp`; they load the SDK): docs/design-notes.md, "MCP (issue 12 §1–§2)".
export * from "./src/tools/mcp/spec.ts";
