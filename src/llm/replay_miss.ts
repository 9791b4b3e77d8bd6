/**
 * The error of an offline replay miss (`not_cached`, `inference.md` §6) and
 * what it says of the place a request names: a chat task's request names its
 * working directory and its job's path under `SCOUT_HOME` (the step-4
 * system message), so a replay run from elsewhere than its recording asks
 * another request, and misses, although the cache holds the recorded one
 * (R121-5). Neither can the miss know for certain (the cache holds digests,
 * not texts): its notes say what is likely — CR characters in the request's
 * text, from line endings git converted (R152-1), and the places it names.
 *
 * @module
 */
import process from "node:process";
import type { Message } from "../chat/types.ts";
import { isScoutError, ScoutError } from "../errors.ts";

/**
 * The `not_cached` error of an offline miss.
 *
 * @param endpoint endpoint name (`""` for none)
 * @param backend backend name
 * @param model model
 * @param key the request digest
 * @param hint what the cache holds of the same request (`cache_miss_hint.ts`), if anything
 * @returns the error
 */
export function notCached(
  endpoint: string,
  backend: string,
  model: string,
  key: string,
  hint?: string | null,
): ScoutError {
  const where = endpoint ? `endpoint "${endpoint}"` : `backend "${backend}"`;
  return new ScoutError(
    "not_cached",
    `Offline: no cached answer for ${where} (model "${model}"), request digest ${key}${
      hint ? `; ${hint}` : ""
    }`,
    { endpoint, backend, model, digest: key, ...(hint ? { hint } : {}) },
  );
}

/**
 * Whether an error is an offline replay miss (`not_cached`), or was caused by
 * one: such a failure ends the whole run, it never becomes a tool output.
 *
 * @param e the error
 * @returns true for a replay miss
 */
export function isReplayMiss(e: unknown): boolean {
  for (let c = e, depth = 0; c && depth < 8; c = (c as { cause?: unknown }).cause, depth++) {
    if (isScoutError(c, "not_cached")) return true;
  }
  return false;
}

/** A character that goes on a path (a longer name, a deeper path). */
const PATH_CHAR = /[\w/~-]/;

/**
 * Whether `text` names `path`: as a whole (`inner`: or as the start of a
 * deeper path), not as the start of a longer name; a sentence's full stop
 * after it ends it.
 */
function names(text: string, path: string, inner: boolean): boolean {
  for (let i = text.indexOf(path); i !== -1; i = text.indexOf(path, i + 1)) {
    const next = text[i + path.length];
    if (next === undefined || (inner && next === "/")) return true;
    if (next === "." && !PATH_CHAR.test(text[i + path.length + 1] ?? " ")) return true;
    if (!PATH_CHAR.test(next) && next !== ".") return true;
  }
  return false;
}

/** The string contents of a request's messages (what the notes search). */
function texts(messages: readonly Message[]): string[] {
  return messages.map((m) => m.content).filter((c): c is string => typeof c === "string");
}

/**
 * What an offline miss adds when its request's text holds CR (`\r`)
 * characters (R152-1): line endings are part of what is asked, so a chat or
 * `start_chat` that git checked out with CRLF (`core.autocrlf`, the Windows
 * default) asks another request than one recorded with LF — the likely cause,
 * not a certain one (a recording made with CRLF replays). The error path only.
 *
 * @param messages the missed request's messages
 * @returns the note, or null when no text holds a CR
 *
 * @example
 * ```ts
 * import { lineEndingNote } from "./replay_miss.ts";
 * lineEndingNote([{ role: "user", content: "a\r\nb" }]); // 'the request\'s text holds CR…'
 * ```
 */
export function lineEndingNote(messages: readonly Message[]): string | null {
  if (!texts(messages).some((t) => t.includes("\r"))) return null;
  return "the request's text holds CR (\\r) characters: line endings are part of the request " +
    "(and of its cache key), so files git checked out with CRLF (core.autocrlf, the Windows " +
    "default) ask another request than one recorded with LF — likely the cause; keep them as " +
    'recorded with a .gitattributes such as "*.chat -text", "Agent/** -text" and ' +
    '"var/cache/** -text"';
}

/**
 * What an offline miss adds when its request names the working directory
 * (as a whole path) or `SCOUT_HOME` (a path in it) — a chat task's request
 * does (R121-5): a replay run from elsewhere than its recording asks another
 * request, and this says where to look. Worded as a possibility (R152-1):
 * the cache holds digests, not the recording's places, so whether they
 * differ cannot be known. The working directory is the physical one
 * (`process.cwd()`, symlinks resolved: R152-3), `SCOUT_HOME` as given. The
 * error path only; the request's string contents are searched.
 *
 * @param messages the missed request's messages
 * @param home `SCOUT_HOME`
 * @param cwd the working directory (default: the process's)
 * @returns the note, or null when the request names neither
 *
 * @example
 * ```ts
 * import { placeNote } from "./replay_miss.ts";
 * placeNote([{ role: "system", content: "Your current working directory is /w." }], "/h", "/w");
 * // 'the request names the working directory "/w" (its physical path, symlinks resolved): …'
 * ```
 */
export function placeNote(
  messages: readonly Message[],
  home: string,
  cwd: string = process.cwd(),
): string | null {
  const all = texts(messages);
  // "/" is in every path: it says nothing
  const inCwd = cwd.length > 1 && all.some((t) => names(t, cwd, false));
  const inHome = home.length > 1 && all.some((t) => names(t, home, true));
  if (!inCwd && !inHome) return null;
  const what = [
    ...(inCwd ? [`the working directory "${cwd}" (its physical path, symlinks resolved)`] : []),
    ...(inHome ? [`SCOUT_HOME "${home}"`] : []),
  ].join(" and ");
  const place = inCwd && inHome
    ? "the working directory or SCOUT_HOME"
    : inCwd
    ? "the working directory"
    : "SCOUT_HOME";
  return `the request names ${what}: if ${place} differs from the recording's, ` +
    "this replay asks another request";
}

/**
 * The note an offline miss adds when the cache holds no near entry: the
 * line-ending note and the place note, whichever apply.
 *
 * @param messages the missed request's messages
 * @param home `SCOUT_HOME`
 * @param cwd the working directory (default: the process's)
 * @returns the notes joined, or null when none applies
 */
export function missNote(
  messages: readonly Message[],
  home: string,
  cwd: string = process.cwd(),
): string | null {
  const notes = [lineEndingNote(messages), placeNote(messages, home, cwd)];
  const said = notes.filter((n): n is string => n !== null);
  return said.length > 0 ? said.join("; ") : null;
}
