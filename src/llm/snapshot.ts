/**
 * Failure snapshots (`inference.md` §7, [TS-FIX]): when a query or the
 * processing of its reply fails, the messages, options and current meta are
 * written next to each other so the request can be inspected and replayed —
 * with `key` and anything that looks like a credential redacted (names and
 * urls as `util/secrets.ts` decides).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { serializeMeta } from "../chat/meta.ts";
import { print } from "../chat/print.ts";
import type { Message } from "../chat/types.ts";
import { writeFileAtomic } from "../util/fs.ts";
import { setOwn } from "../util/own_record.ts";
import { isSecretName, looksLikeKey, redactUrlsIn } from "../util/secrets.ts";
import { jsonText } from "../util/json_text.ts";

/**
 * A copy of `options` with credentials replaced by `"[REDACTED]"` — values
 * of secret names ({@link isSecretName}: `key`, `session_token`,
 * `secret_key`, an `Authorization` header…) and key-like values (`sk-…`) —
 * the passwords and secret query parameters of urls in string values masked
 * ({@link redactUrlsIn}), and functions, messages and tool implementations
 * dropped.
 *
 * @param options options
 * @returns JSON-safe redacted options
 */
export function redactOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) {
    if (k === "messages" || k === "tools" || typeof v === "function") continue;
    setOwn(out, k, isSecretName(k) || looksLikeKey(v) ? "[REDACTED]" : redactValue(v));
  }
  return out;
}

function redactValue(v: unknown): unknown {
  if (typeof v === "string") return redactUrlsIn(v);
  if (Array.isArray(v)) return v.map((x) => looksLikeKey(x) ? "[REDACTED]" : redactValue(x));
  if (typeof v === "object" && v !== null) {
    try {
      return JSON.parse(JSON.stringify(redactOptions(v as Record<string, unknown>)));
    } catch {
      return redactUrlsIn(String(v));
    }
  }
  return v;
}

/**
 * A new snapshot's base name: the time and six hex digits
 * (`2026-12-07T10-11-12-345Z-a1b2c3`).
 *
 * @returns the name
 */
export function snapshotName(): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/**
 * Writes a snapshot: `<base>.chat`, `<base>.options.json`, `<base>.meta`, mode
 * 0600 (the chat carries its `file:` contents; the snapshot is the user's own).
 *
 * @param dir snapshot directory (`$SCOUT_HOME/tmp/ask`)
 * @param s messages, options and current meta
 * @param name its base name (default: a new one, {@link snapshotName}); a
 *   replayed failure's is the recorded one
 * @returns the base path (without extension)
 */
export async function writeSnapshot(
  dir: string,
  s: {
    messages: readonly Message[];
    options: Record<string, unknown>;
    currentMeta: Record<string, unknown>;
  },
  name: string = snapshotName(),
): Promise<string> {
  const base = join(dir, name);
  // the chat holds its `file:` contents: readable by the user only (R97-5)
  const own = { mode: 0o600 };
  await writeFileAtomic(`${base}.chat`, print(s.messages as Message[]) + "\n", own);
  await writeFileAtomic(
    `${base}.options.json`,
    jsonText(redactOptions(s.options), 2) + "\n",
    own,
  );
  await writeFileAtomic(`${base}.meta`, serializeMeta(s.currentMeta) + "\n", own);
  return base;
}
