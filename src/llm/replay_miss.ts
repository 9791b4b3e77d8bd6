/**
 * The error of an offline replay miss (`not_cached`, `inference.md` §6) and
 * what it says of the place a request names: a chat task's request names its
 * working directory and its job's path under `SCOUT_HOME` (the step-4
 * system message), so a replay run from elsewhere than its recording asks
 * another request, and misses, although the cache holds the recorded one
 * (R121-5).
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

/**
 * What an offline miss adds when its request names the working directory
 * (as a whole path) or `SCOUT_HOME` (a path in it) — a chat task's request
 * does: run from elsewhere than its recording, a replay misses it, and this
 * says where to look. The error path only; the request's string contents
 * are searched.
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
 * // 'the request names the working directory "/w" (a replay run from another working directory than its recording\'s misses it)'
 * ```
 */
export function placeNote(
  messages: readonly Message[],
  home: string,
  cwd: string = process.cwd(),
): string | null {
  const texts = messages.map((m) => m.content).filter((c): c is string => typeof c === "string");
  // "/" is in every path: it says nothing
  const inCwd = cwd.length > 1 && texts.some((t) => names(t, cwd, false));
  const inHome = home.length > 1 && texts.some((t) => names(t, home, true));
  if (!inCwd && !inHome) return null;
  const what = [
    ...(inCwd ? [`the working directory "${cwd}"`] : []),
    ...(inHome ? [`SCOUT_HOME "${home}"`] : []),
  ].join(" and ");
  const elsewhere = inCwd && inHome
    ? "from another working directory or SCOUT_HOME"
    : inCwd
    ? "from another working directory"
    : "with another SCOUT_HOME";
  return `the request names ${what} (a replay run ${elsewhere} than its recording's misses it)`;
}
