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
