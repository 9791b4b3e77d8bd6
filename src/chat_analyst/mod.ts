/**
 * ChatAnalyst, the built-in workflow of provenance analyses
 * (`message_index`, `message_content`, `chat_overview`, `chat_tool_calls`,
 * `chat_tokens`, `chat_agents`, `chat_report`): a second consumer of the
 * provenance traversal beside `llm prov`, whose analyses are cached jobs,
 * compose as dependencies and can be given to a model as tools
 * (`tool: ChatAnalyst`). Importing this module registers it by name.
 *
 * @example
 * ```ts ignore
 * import { createJob, runJob } from "../workflow/mod.ts";
 * import { chatAnalystWorkflow } from "./mod.ts";
 * const report = await runJob(createJob(chatAnalystWorkflow(), "chat_report", {
 *   inputs: { file: "session.chat" },
 * }));
 * ```
 *
 * @module
 */
import "./builtin.ts";
export { CHAT_ANALYST, chatAnalystWorkflow } from "./workflow.ts";
export { ANALYST_SCHEMA, ANALYST_SCHEMA_VERSION } from "./results.ts";
export type { CallJson, ChatCallsJson, ResultHead, ResultWarning } from "./results.ts";
export { analystRoot } from "./walk.ts";
export type { AnalystRoot, AnalystWarning } from "./walk.ts";
