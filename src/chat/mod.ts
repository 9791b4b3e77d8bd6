/**
 * The `.chat` format and every operation on a chat: parse, print, load,
 * builders, transforms, options, meta records, compile, tool directives,
 * lineage, tracing, tool-call pairing and agent receipts.
 *
 * @module
 */
export type { Chat, Json, Message } from "./types.ts";
export { parse, parseWithLines } from "./parse.ts";
export { escapeContent, INLINE_ROLES, print, printMessage } from "./print.ts";
export { loadRaw, loadRawSync } from "./load.ts";
export { mergeConflict, mergeConflictLine } from "./conflict.ts";
export type { MergeConflict } from "./conflict.ts";
export { normalizeUsage, parseMeta, serializeMeta, toInt, TOKEN_KEYS } from "./meta.ts";
export type { MetaRecord, TokenKey } from "./meta.ts";
export { clean, clear, pull, purge, removeRole } from "./clear.ts";
export { extractOptions, resolveFormat } from "./options.ts";
export type { ExtractedOptions, ExtractOptionsOptions } from "./options.ts";
export { parseOptions, printOptions } from "./option_text.ts";
export type { OptionValue } from "./option_text.ts";
export { append, branch, follow, prepend } from "./follow.ts";
export { addMeta, currentMeta, jobPaths, lastJob, meta } from "./meta_chat.ts";
export { fingerprint, lineageId, messageIndex } from "./lineage.ts";
export type { MessageAddress, MessageIndexEntry, ReceiptAddress } from "./lineage.ts";
export { directEntries, tokenTotals, traceChats, traceChatSources, traceIndices } from "./trace.ts";
export type { TokenTotals, TraceEntry } from "./trace.ts";
export { toolCalls, toolCallStatus } from "./tool_calls.ts";
export type { ToolCall, ToolCallStatus } from "./tool_calls.ts";
export { agentMetaEvidence, agentMetaJobReferences, metaEvidence } from "./receipts.ts";
export type {
  ChatMetaEvidence,
  ReceiptEvidence,
  ReceiptJobReference,
  ReceiptOptions,
  ReceiptProblem,
  ReceiptReason,
} from "./receipts.ts";
export { metaCheckpoint, project } from "./project.ts";
export {
  assistant,
  association,
  continueChat,
  directory,
  endpoint,
  execTask,
  file,
  format,
  image,
  importChat,
  importLast,
  inlineJob,
  inlineTask,
  introduce,
  job,
  message,
  model,
  option,
  pdf,
  stickyOption,
  system,
  tag,
  tagText,
  task,
  tool,
  user,
} from "./builders.ts";
export type { TagOptions } from "./builders.ts";
export { answer, final, purged, roleMessages, shed, tooling } from "./answer.ts";
export { parseJson } from "./json.ts";
export { chatPath, save, write, writeAnswer } from "./save.ts";
export type { SaveOptions, WriteOptions } from "./save.ts";
export { printBrief } from "./print_brief.ts";
export * from "./compile_api.ts";
export { extractTools, shellWords, TOOL_DIRECTIVES } from "./tool_directives.ts";
export type { ToolDirective } from "./tool_directives.ts";
export {
  copyMessages,
  keepWrittenAt,
  locateAt,
  markWrittenAt,
  WRITTEN_AT,
  writtenAt,
} from "./written_at.ts";
export type { OptionLine, WrittenAt } from "./written_at.ts";
