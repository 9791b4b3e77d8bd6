/**
 * The text of a queue worker's `{"error": …}` reply (R167-9): what a client
 * of the queue — possibly anyone who can write to a shared directory — reads
 * about a failed request. It keeps the reason and leaves out the worker's own
 * details, which its log keeps: the provider url it asked (`at http://…`,
 * `(endpoint "loop", url http://…)`) and the local failure snapshot
 * (`(snapshot: /…/tmp/ask/….chat)`). A request file that cannot be read or
 * parsed says so as the worker's other refusals do (`Bad relay request: …`).
 * Secrets are redacted as everywhere a message leaves the worker (R146).
 *
 * @module
 */
import { isScoutError } from "../errors.ts";
import { redactSecretsIn } from "../util/secrets.ts";

/**
 * The reply text of a failed request.
 *
 * @param e what answering (or reading) the request threw
 * @returns the message for the `{"error": …}` reply
 *
 * @example
 * ```ts
 * import { replyErrorText } from "./queue_reply_error.ts";
 * replyErrorText(new SyntaxError("Unexpected token n")); // "Bad relay request: not JSON (Unexpected token n)"
 * ```
 */
export function replyErrorText(e: unknown): string {
  if (e instanceof SyntaxError) return `Bad relay request: not JSON (${e.message})`;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (!isScoutError(e) && (code === "EISDIR" || code === "EACCES")) {
    return `Bad relay request: cannot read it (${code})`;
  }
  let text = e instanceof Error ? e.message : String(e);
  if (isScoutError(e)) {
    // the message before the notes for the user (endpoint, url, snapshot): addToMessage
    if (typeof e.baseMessage === "string") text = e.baseMessage;
    if (typeof e.url === "string") text = withoutPlace(text, e.url);
  }
  text = text.replace(/ \(snapshot: [^)]*\)/g, "").replace(/ \(endpoint "[^"]*", url [^)]*\)/g, "");
  return redactSecretsIn(text);
}

/** `text` without ` at <url>` / ` by <host>` (a network error's), other mentions generic. */
function withoutPlace(text: string, url: string): string {
  let host: string | null = null;
  try {
    host = new URL(url).host;
  } catch { /* not a url: the url alone */ }
  text = text.replaceAll(` at ${url}`, "").replaceAll(url, "its provider");
  if (host) text = text.replaceAll(` by ${host}`, "").replaceAll(host, "its provider");
  return text;
}
