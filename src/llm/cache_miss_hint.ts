/**
 * Why an offline replay missed (`inference.md` §6, `not_cached`): the round
 * entries store the digests of their key's parts (`CacheKeyParts`), so on a
 * miss — on that error path only — the cache is searched for an entry
 * recorded for the same request apart from one part: its tool definitions (a
 * built-in tool's text changed since the recording), its parameters, the meta
 * before the round, or the endpoint or model it was recorded with. Entries
 * written before the parts were stored are not compared.
 *
 * The search is bounded (R120-2): only entries of the same messages can be
 * near, and the index (`cache_index.ts`) lists those, so at most
 * {@link INDEX_CANDIDATES} of them are read; the cache directory is listed
 * only when the index may not list every entry, and then at most
 * {@link SCAN_LIMIT} entries are looked at — the end of each first, where
 * the store writes the parts — and the hint says how many of how many. Of an
 * entry, at most its first {@link HEAD_BYTES} and last {@link TAIL_BYTES}
 * are read, where the fields compared are.
 *
 * @module
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { indexedKeys } from "./cache_index.ts";
import { type CacheKeyParts, ROUND_CACHE_VERSION } from "./cache_key.ts";
import { type EntryEnds, entryEnds, entryFields } from "./cache_entry_ends.ts";

/** At most this many entries the index lists for the messages are read (the newest). */
export const INDEX_CANDIDATES = 32;

/** At most this many entries are looked at when the directory is scanned. */
export const SCAN_LIMIT = 2000;

/** Of an entry, the bytes read from its start (its format and origin)… */
export const HEAD_BYTES = 4096;

/** …and from its end (its parts, written last). */
export const TAIL_BYTES = 512;

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

/** What a search found, and what it read. */
export interface NearSearch {
  /** The nearest entry, or null. */
  near: NearEntry | null;
  /** How many entry files it opened (or tried to: an index line whose entry is gone counts). */
  read: number;
  /** When it scanned the directory and stopped early: how many entries it looked at, of how many. */
  stopped: { looked: number; total: number } | null;
}

/**
 * The entry of the cache directory closest to a missed request: one recorded
 * for it apart from a single part other than its messages (the tools first,
 * then the parameters, the meta, the origin). Unreadable files and entries
 * without parts are skipped. The entries the index lists for the request's
 * messages are read first (the newest first); the directory is scanned, at
 * most {@link SCAN_LIMIT} entries, only when they hold no near one and the
 * index may not list every entry.
 *
 * @param dir the cache directory
 * @param req the missed request
 * @returns the entry found, how many entries were read, whether the scan stopped early
 */
export function nearSearch(dir: string, req: MissedRequest): NearSearch {
  const needle = `"messages":"${req.parts.messages}"`;
  let indexed: { keys: string[]; complete: boolean };
  try {
    indexed = indexedKeys(dir, req.parts.messages, INDEX_CANDIDATES);
  } catch {
    indexed = { keys: [], complete: false }; // an unreadable index: the scan instead
  }
  let best: NearEntry | null = null;
  for (const key of indexed.keys) {
    const found = near(join(dir, `${key}.json`), needle, req);
    if (found && (!best || rank(found) < rank(best))) best = found; // ties: the newest
  }
  const read = indexed.keys.length;
  if (best || indexed.complete) return { near: best, read, stopped: null };
  const scanned = scan(dir, needle, req);
  return { ...scanned, read: read + scanned.read };
}

function rank(n: NearEntry): number {
  return ORDER.indexOf(n.differs);
}

/** The directory's entries, the first {@link SCAN_LIMIT} of its listing looked at. */
function scan(dir: string, needle: string, req: MissedRequest): NearSearch {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { near: null, read: 0, stopped: null }; // no cache at all: nothing to compare
  }
  let best: NearEntry | null = null;
  let total = 0;
  for (const name of names) {
    if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
    if (++total > SCAN_LIMIT) continue; // counted, not read
    const found = near(join(dir, name), needle, req);
    if (!found) continue;
    // ties: the first name, whatever the listing's order
    if (
      best && (rank(best) < rank(found) || (rank(best) === rank(found) && best.file < found.file))
    ) {
      continue;
    }
    best = found;
  }
  const looked = Math.min(total, SCAN_LIMIT);
  return { near: best, read: looked, stopped: total > looked ? { looked, total } : null };
}

/** The entry `file` as a near one, or null (unreadable, not of the messages, or not near). */
function near(file: string, needle: string, req: MissedRequest): NearEntry | null {
  let ends: EntryEnds | null;
  try {
    ends = entryEnds(file, { head: HEAD_BYTES, tail: TAIL_BYTES, needle });
  } catch {
    return null; // removed since listed, or unreadable: not compared
  }
  const entry = ends && entryFields(file, ends);
  const differs = entry && difference(entry, req);
  if (!entry || !differs) return null;
  const origin = {
    endpoint: String(entry.endpoint),
    backend: String(entry.backend),
    model: String(entry.model),
  };
  return { differs, file, origin };
}

/** `12,345` (whatever the locale). */
function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/**
 * The hint an offline miss adds to its message: what the cache holds of the
 * same request, or null; and how much of the cache was looked at, when the
 * scan stopped early.
 *
 * @param dir the cache directory
 * @param req the missed request
 * @returns `the cache holds an answer to the same messages recorded with …`, or null
 */
export function missHint(dir: string, req: MissedRequest): string | null {
  const { near, stopped } = nearSearch(dir, req);
  const looked = stopped &&
    `${count(stopped.looked)} of the cache's ${count(stopped.total)} entries`;
  if (near) {
    const says = `the cache holds an answer to the same messages ${SAYS[near.differs](near)}`;
    return looked ? `${says} (looked at ${looked})` : says;
  }
  return looked &&
    `none of the ${looked} looked at holds an answer to the same messages (the others were not compared)`;
}
