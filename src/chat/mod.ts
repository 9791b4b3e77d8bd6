/**
 * The `.chat` format and every operation on a chat: parse, print, load,
 * builders, transforms, meta records (and, as they land, compile, lineage,
 * tracing, tool-call pairing and agent receipts).
 *
 * @module
 */
export type { Chat, Json, Message } from "./types.ts";
export { parse } from "./parse.ts";
export { escapeContent, INLINE_ROLES, print, printMessage } from "./print.ts";
export { loadRaw, loadRawSync } from "./load.ts";
export { normalizeUsage, parseMeta, serializeMeta, toInt, TOKEN_KEYS } from "./meta.ts";
export type { MetaRecord, TokenKey } from "./meta.ts";
export { clean, clear, pull, purge, removeRole } from "./clear.ts";
export { extractOptions, resolveFormat } from "./options.ts";
export type { ExtractedOptions, ExtractOptionsOptions } from "./options.ts";
export { parseOptions, printOptions } from "./option_text.ts";
export type { OptionValue } from "./option_text.ts";
export { append, branch, follow, prepend } from "./follow.ts";
export { addMeta, currentMeta, jobPaths, lastJob, meta } from "./meta_chat.ts";
