/**
 * Why an offline replay missed (`inference.md` §6, `not_cached`): the round
 * entries store the digests of their key's parts (`CacheKeyParts`), so on a
 * miss the cache directory is scanned — on that error path only — for an
 * entry recorded for the same request apart from one part: its tool
 * definitions (a built-in tool's text changed since the recording), its
 * parameters, the meta before the round, or the endpoint or model it was
 * recorded with. Entries written before the parts were stored are not
 * compared.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CacheKeyParts, ROUND_CACHE_VERSION } from "./cache_key.ts";

/** Where a round was recorded, and with which parts. */
export interface MissedRequest {
  /** Endpoint name (`""` for none). */
  endpoint: string;
  /** Backend name. */
  backend: string;
  /** Model. */
  model: string;
  /** The digests of the missed request's key parts. */
  parts: CacheKeyParts;
}

/** A near entry: the one part it differs in, and its file. */
export interface NearEntry {
  /** The part that differs (`origin`: the endpoint, backend or model). */
  differs: keyof CacheKeyParts | "origin";
  /** The entry's file. */
  file: string;
  /** Where it was recorded (for `origin`). */
  origin: { endpoint: string; backend: string; model: string };
}

/** What each part's difference means to the user, in the order they are told. */
const SAYS: Record<NearEntry["differs"], (near: NearEntry) => string> = {
  tools: (n) =>
    `recorded with other tool definitions (${n.file}): a tool's text changed since it was recorded`,
  params: (n) =>
    `recorded with other parameters (${n.file}): an option, a prompt strategy or the model's settings changed since it was recorded`,
  currentMeta: (n) =>
    `recorded after another meta record (${n.file}): the chat's meta before this request changed since it was recorded`,
  origin: (n) =>
    `recorded for ${
      n.origin.endpoint ? `endpoint "${n.origin.endpoint}"` : `backend "${n.origin.backend}"`
    } (model "${n.origin.model}") (${n.file})`,
  messages: () => "",
};
const ORDER: NearEntry["differs"][] = ["tools", "params", "currentMeta", "origin"];

/** The one way `entry` differs from `req`, or null (none, more than one, or only the messages). */
function difference(
  entry: Record<string, unknown>,
  req: MissedRequest,
): NearEntry["differs"] | null {
  const parts = entry.parts as Record<string, unknown> | undefined;
  if (entry.v !== ROUND_CACHE_VERSION || typeof parts !== "object" || parts === null) return null;
  const differs: NearEntry["differs"][] = [];
  if (
    entry.endpoint !== req.endpoint || entry.backend !== req.backend || entry.model !== req.model
  ) {
    differs.push("origin");
  }
  for (const k of Object.keys(req.parts) as (keyof CacheKeyParts)[]) {
    if (parts[k] !== req.parts[k]) differs.push(k);
  }
  return differs.length === 1 && differs[0] !== "messages" ? differs[0]! : null;
}

/**
 * The entry of the cache directory closest to a missed request: one recorded
 * for it apart from a single part other than its messages (the tools first,
 * then the parameters, the meta, the origin). Unreadable files and entries
 * without parts are skipped.
 *
 * @param dir the cache directory
 * @param req the missed request
 * @returns the entry, or null
 */
export function nearEntry(dir: string, req: MissedRequest): NearEntry | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null; // no cache at all: nothing to compare
  }
  let best: NearEntry | null = null;
  for (const name of names.sort()) {
    if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
    const file = join(dir, name);
    let entry: Record<string, unknown>;
    try {
      const text = readFileSync(file, "utf8");
      if (!text.includes(`"parts"`)) continue;
      entry = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof entry !== "object" || entry === null) continue;
    const differs = difference(entry, req);
    if (differs === null) continue;
    if (best && ORDER.indexOf(best.differs) <= ORDER.indexOf(differs)) continue;
    const origin = {
      endpoint: String(entry.endpoint),
      backend: String(entry.backend),
      model: String(entry.model),
    };
    best = { differs, file, origin };
  }
  return best;
}

/**
 * The hint an offline miss adds to its message: what the cache holds of the
 * same request, or null.
 *
 * @param dir the cache directory
 * @param req the missed request
 * @returns `the cache holds an answer to the same messages recorded with …`, or null
 */
export function missHint(dir: string, req: MissedRequest): string | null {
  const near = nearEntry(dir, req);
  return near && `the cache holds an answer to the same messages ${SAYS[near.differs](near)}`;
}
