/**
 * Where a provider error came from, named in its message (R83-8): the
 * endpoint when one was used and the url, without credentials — with several
 * endpoints or proxies, "answered HTTP 500" alone does not say which server
 * failed.
 *
 * @module
 */
import { isScoutError, type ScoutError } from "../errors.ts";
import { redactUrl } from "../util/secrets.ts";

/**
 * Notes the url a failed request went to on a provider error, unless one is
 * noted already (an adapter that computes its url, e.g. Bedrock's regional
 * one, or the SDK's default).
 *
 * @param e what was thrown
 * @param url the url (redacted here)
 * @returns `e`
 */
export function atUrl(e: unknown, url: string | undefined): unknown {
  if (isScoutError(e) && url !== undefined && typeof e.url !== "string") e.url = redactUrl(url);
  return e;
}

/** Where a query went. */
export interface QueryPlace {
  /** The endpoint's name, when one was used. */
  endpoint?: string | null | undefined;
  /** The configured url, or the backend's default. */
  url?: string | undefined;
}

/**
 * Adds ` (endpoint "name", url http://…)` to a query's or reply's provider
 * error, once: the configured url (else the one the adapter noted,
 * {@link atUrl}); not again when the message names it already (a network
 * error's "at …"). A request that went another way names it instead of a
 * url (`e.via`: ` (endpoint "name", relay host:/dir)`, R109-7). The endpoint
 * is also set as `e.endpoint`, the url as `e.url`; the message before is
 * kept ({@link addToMessage}).
 *
 * @param e what a backend's query threw
 * @param place the endpoint and url of the query
 * @returns `e`
 */
export function locateError(e: unknown, place: QueryPlace): unknown {
  if (!isScoutError(e) || e.located === true) return e;
  if (e.phase !== "query" && e.phase !== "process_response") return e;
  const via = typeof e.via === "string" ? e.via : undefined;
  const url = via !== undefined || e.urlShown === true
    ? undefined
    : place.url !== undefined
    ? redactUrl(place.url)
    : e.url;
  const parts: string[] = [];
  if (place.endpoint) parts.push(`endpoint "${place.endpoint}"`);
  if (via !== undefined) parts.push(via);
  if (typeof url === "string") parts.push(`url ${url}`);
  if (parts.length) addToMessage(e, ` (${parts.join(", ")})`);
  if (place.endpoint) e.endpoint = place.endpoint;
  if (typeof url === "string") e.url = url;
  e.located = true;
  return e;
}

/**
 * Appends a note for the user (where the query went, the failure snapshot)
 * to a ScoutError's message, keeping the message before as `e.baseMessage`
 * (the first time): a tool output sent to a model carries that one
 * (R84-3) — a local path or a server's address is no business of a
 * possibly external provider, and a snapshot's timestamped path would change
 * the next request, and its cache key, with every run.
 *
 * @param e the error
 * @param note the text to append
 */
export function addToMessage(e: ScoutError, note: string): void {
  if (typeof e.baseMessage !== "string") e.baseMessage = e.message;
  e.message += note;
}
