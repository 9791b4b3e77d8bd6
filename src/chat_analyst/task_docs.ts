/**
 * What ChatAnalyst's tasks say of themselves: their descriptions (which are
 * their tool descriptions too) and the text of what each result holds.
 *
 * @module
 */
import { ANALYST_SCHEMA_VERSION } from "./results.ts";

/**
 * A JSON task's result: the common head, its own `fields`, the warnings;
 * then what its `note` says of them, when it is incomplete, what `root` is,
 * and the warning codes (the input's and the walk's, then its own `codes`).
 *
 * @param fields the task's own fields
 * @param note what to say of them (optional)
 * @param codes the task's own warning codes, e.g. `"invalid_addresses (node null)"` (optional)
 * @returns the text of the task's `returns`
 */
export function resultDoc(fields: string, note = "", codes = ""): string {
  const said = note === "" ? "" : `${note}; `;
  const own = codes === "" ? "" : `, ${codes}`;
  return `JSON {schema: scout-ai/chat-analyst, version: ${ANALYST_SCHEMA_VERSION}, task, file, ` +
    `root, complete, ${fields}, warnings: [{code, message, node}]}; ${said}complete is false and ` +
    "warnings say why when the file is missing, a directory, or some evidence (a receipt, a log, " +
    "a job) could not be read; root is the root's node id (chat:<path> or job:<path>), null when " +
    "the file is missing or a directory; warning codes: root_not_found and not_a_chat (node " +
    "null), the walk's (chat_unreadable, unresolved_job_reference, receipt_problem…: those of " +
    `llm prov --json, node the node being read; see docs/provenance-json.md)${own}`;
}

/**
 * The tasks' descriptions. They are the model-facing tool descriptions too,
 * part of every inference-cache key of a run offering them (design notes,
 * "Cache compatibility"): what a result holds is told in the tasks'
 * `returns` (their `--help`), which no tool definition carries.
 */
export const DOC = {
  chat_provenance:
    "The one provenance walk the other analyses share (internal: not exported as a tool). " +
    "Walks FILE once, as `llm prov` does, pairing every chat's tool calls as it is read, and " +
    "saves the four analyses (overview, tokens, tool_calls, agents) in its job files for the " +
    "tasks that publish them.",
  message_index:
    "Every message of every chat in FILE's provenance, as {address: [path, index], role, lineage_id}. " +
    "Addresses say where a message is saved; lineage ids say which conversational content it is " +
    "(copied history shares them). Use addresses with message_content.",
  message_content:
    "The messages at ADDRESSES (a JSON array of [path, index], as message_index gives them): " +
    "role, lineage_id and content (over 20,000 characters shortened in the middle). Only chats in " +
    "FILE's provenance can be read; other addresses are warnings.",
  chat_overview:
    "The provenance graph of FILE: nodes (chats and jobs: id, kind, path, label, hidden, owner, " +
    "job facts, tokens) and structural edges (from, to, relation: job, agent_job, dependency, log, " +
    "result), exactly as `llm prov --json` has them, plus counts.",
  chat_tool_calls:
    "Every tool invocation in FILE's provenance, each call paired with its output by call id " +
    "within its chat, grouped by chat: the chat, its job and agent (from where the chat lives), " +
    "and per call the tool, call id, call and output indices, arguments (compact JSON, " +
    "shortened), status ok / error / missing_output, exception, exitStatus, and durationMs " +
    "(when the output has timestamps).",
  chat_tokens:
    "Token use of FILE: totals by scope (deduplicated_total is the cost; chat_evidence, " +
    "receipt_evidence, receipt_only describe coverage and overlap), each node's direct tokens " +
    "(its own meta records; a job: its logs) and subtree tokens (all it reaches, each inference " +
    "once), and the per-inference events (identity, deduplication rule, tokens, source addresses).",
  chat_agents:
    "Delegations in FILE's provenance (`ask` and `hand_off_to_*` calls): caller, target agent, " +
    "conversation, prompt (shortened), status, and the specialist's job (jobs: every job its " +
    "receipt named) and log. association is " +
    "structural (the call's agent_meta receipt names the job), inferred (only a " +
    "society/<Agent>/<conversation>.chat log in the caller's own society matches, a one-shot " +
    "_oneshot-<n>.chat for a call without a conversation; inferred: true) or none.",
  chat_report:
    "A Markdown report of FILE: graph size, token totals by scope and the largest spenders, tool " +
    "calls by tool with the failed ones, delegations, warnings. Composed from chat_overview, " +
    "chat_tokens, chat_tool_calls and chat_agents (its dependencies: cached jobs, shared with " +
    "direct calls of those tasks).",
};
