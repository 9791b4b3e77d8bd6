/**
 * ChatAnalyst's message tasks: `message_index` (every discovered chat's
 * messages as `{address, role, lineage_id}`) and `message_content` (the
 * messages at given addresses). One walk each; only chats the walk
 * discovers can be read, so a caller cannot reach unrelated files.
 *
 * @module
 */
import { lineageIds } from "../chat/lineage.ts";
import { nodeId } from "../provenance/paths.ts";
import { ANALYST_SCHEMA, ANALYST_SCHEMA_VERSION } from "./results.ts";
import { type AnalystWarning, chatWalk } from "./walk.ts";
import { clipMiddle } from "../util/clip.ts";

/** Longest content a `message_content` entry carries (shortened in the middle beyond). */
export const CONTENT_MAX = 20_000;

/**
 * `message_index`: the messages of every chat the walk discovers.
 *
 * @param file chat file or job path
 * @param jobsDirs extra job roots
 * @returns `{schema, version, task, file, root, complete, chats, messages, warnings}`
 */
export function messageIndexResult(
  file: string,
  jobsDirs: readonly string[],
): Record<string, unknown> {
  const messages: { address: [string, number]; role: string; lineage_id: string }[] = [];
  let chats = 0;
  const w = chatWalk(file, jobsDirs, (chat) => {
    chats++;
    const ids = lineageIds(chat.messages);
    chat.messages.forEach((m, i) =>
      messages.push({ address: [chat.path, i], role: String(m.role), lineage_id: ids[i]! })
    );
  });
  return {
    schema: ANALYST_SCHEMA,
    version: ANALYST_SCHEMA_VERSION,
    task: "message_index",
    file: w.path,
    root: w.root,
    complete: w.warnings.length === 0,
    chats,
    messages,
    warnings: w.warnings,
  };
}

/**
 * Reads the `addresses` input: a JSON array of `[path, index]` pairs (a
 * JSON text or an already parsed array).
 *
 * @param value the input
 * @param warnings receives what cannot be read
 * @returns the pairs
 */
export function parseAddresses(value: unknown, warnings: AnalystWarning[]): [string, number][] {
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch (e) {
      warnings.push({
        code: "invalid_addresses",
        message: `addresses is not JSON: ${(e as Error).message}`,
        node: null,
      });
      return [];
    }
  }
  if (!Array.isArray(v)) {
    warnings.push({
      code: "invalid_addresses",
      message: "addresses must be a JSON array of [path, index]",
      node: null,
    });
    return [];
  }
  return v.flatMap((a) => {
    if (
      Array.isArray(a) && typeof a[0] === "string" && Number.isInteger(a[1]) && a[1] >= 0
    ) return [[a[0], a[1]] as [string, number]];
    warnings.push({
      code: "invalid_addresses",
      message: `Not an address [path, index]: ${JSON.stringify(a)}`,
      node: null,
    });
    return [];
  });
}

function shorten(content: unknown): unknown {
  if (typeof content !== "string" || content.length <= CONTENT_MAX) return content;
  const half = CONTENT_MAX / 2;
  return clipMiddle(
    content,
    half,
    half,
    `\n<... ${content.length - CONTENT_MAX} characters cut ...>\n`,
  );
}

/**
 * `message_content`: the messages at the given addresses, from chats the
 * walk discovers; an address outside them (or past a chat's end) is a
 * warning (its `node` the chat's id when the walk reached that chat).
 *
 * @param file chat file or job path
 * @param jobsDirs extra job roots
 * @param addresses JSON array of `[path, index]`
 * @returns `{schema, version, task, file, root, complete, messages, warnings}`
 */
export function messageContentResult(
  file: string,
  jobsDirs: readonly string[],
  addresses: unknown,
): Record<string, unknown> {
  const warnings: AnalystWarning[] = [];
  const wanted = parseAddresses(addresses, warnings);
  const byChat = new Map<string, number[]>();
  for (const [p, i] of wanted) (byChat.get(p) ?? byChat.set(p, []).get(p)!).push(i);
  const found = new Map<string, Record<string, unknown>>();
  const seen = new Set<string>();
  const w = chatWalk(file, jobsDirs, (chat) => {
    seen.add(chat.path);
    const want = byChat.get(chat.path);
    if (want === undefined) return;
    const ids = lineageIds(chat.messages, Math.max(...want) + 1);
    for (const i of want) {
      const m = chat.messages[i];
      if (m === undefined) continue;
      found.set(JSON.stringify([chat.path, i]), {
        address: [chat.path, i],
        role: String(m.role),
        lineage_id: ids[i],
        content: shorten(m.content),
      });
    }
  });
  warnings.unshift(...w.warnings);
  const messages = wanted.flatMap(([p, i]) => {
    const m = found.get(JSON.stringify([p, i]));
    if (m !== undefined) return [m];
    warnings.push({
      code: "address_not_found",
      message: seen.has(p)
        ? `Chat "${p}" has no message ${i}`
        : `Chat "${p}" is not part of the provenance of "${w.path}"`,
      node: seen.has(p) ? nodeId("chat", p) : null,
    });
    return [];
  });
  return {
    schema: ANALYST_SCHEMA,
    version: ANALYST_SCHEMA_VERSION,
    task: "message_content",
    file: w.path,
    root: w.root,
    complete: warnings.length === 0,
    messages,
    warnings,
  };
}
