/**
 * The `relay` backend (`inference.md` appendix "relay", `agents.md` §5.6):
 * the question goes as `{question, …options}` to `<digest>.json` in a queue
 * directory — `~/.scout/var/ask/` on an ssh host, or a local directory for
 * shared file systems — and the answer is read back from
 * `reply/<digest>.json`, written there by `scout-ai llm process` (or Ruby's
 * `scout llm process`) on the machine that holds the keys or GPUs. The reply
 * is the answer text JSON-encoded; `{"error": …}` is a failed request.
 *
 * [TS-FIX] Ruby polls forever; this waits at most `request_timeout` and then
 * fails naming the server and the request id. The request file stays, so a
 * worker that comes up later still answers it and a rerun finds the reply.
 * An error reply is not kept as the answer (Ruby reuses it forever): the
 * client that reads one removes it, so the next ask queues the request again
 * and a retry after an outage reaches the provider (R167-3).
 *
 * @module
 */
import { ScoutError } from "../../errors.ts";
import type { Message } from "../../chat/types.ts";
import { responseError } from "../errors.ts";
import { DIRECTIVE_ROLES, mediaDataUrl, textContent } from "../format.ts";
import { type RelayTransport, relayTransport } from "../relay_transport.ts";
import type { Backend, BackendReply, BackendRequest, QueryContext } from "../types.ts";
import { md5hex } from "../../util/hash.ts";
import { clipEnd } from "../../util/clip.ts";
import { jsonText } from "../../util/json_text.ts";

/** Remote queue directory of `backend: relay` (under the remote home). */
export const RELAY_ASK_DIR = ".scout/var/ask";
/** The placeholder model: the worker's own default model answers. */
export const RELAY_DEFAULT_MODEL = "default";

/**
 * Waits for `name` on the transport: local directories are polled from 10 ms
 * up to 1 s, remote ones every second.
 *
 * @param t the transport
 * @param name file name
 * @param timeoutMs how long to wait
 * @param signal aborts the wait
 * @returns the file's text, or null on timeout
 */
export async function waitFor(
  t: RelayTransport,
  name: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string | null> {
  const end = Date.now() + timeoutMs;
  let delay = t.local ? 10 : 1000;
  for (;;) {
    signal?.throwIfAborted();
    const text = await t.get(name);
    if (text !== null) return text;
    const left = end - Date.now();
    if (left <= 0) return null;
    await new Promise((r) => setTimeout(r, Math.min(delay, left)));
    if (t.local) delay = Math.min(delay * 2, 1000);
  }
}

/**
 * The messages a relay request carries: what a provider would see (directive
 * roles — `tool:`, `option:`, `endpoint:`… — stay here: a worker refuses them, R97-2);
 * local images and PDFs go as `data:` URLs (the worker reads no files, R100-1).
 *
 * @param messages the request's messages
 * @returns `{role, content}` copies
 * @throws ScoutError as `loadMedia` (a missing or unsupported media file)
 */
export function relayMessages(messages: readonly Message[]): { role: string; content: unknown }[] {
  return messages
    .filter((m) => !DIRECTIVE_ROLES.has(m.role) || m.role === "previous_response_id")
    .map((m) =>
      m.role === "image" || m.role === "pdf"
        ? { role: m.role, content: mediaDataUrl(textContent(m.content).trim(), m.role) }
        : { role: m.role, content: m.content }
    );
}

/**
 * The request document: the messages as the question and the options the
 * worker passes to its ask (the model unless it is the placeholder, and the
 * provider parameters).
 *
 * @param req the request
 * @param model the resolved model
 * @returns the JSON text
 */
export function relayRequest(req: BackendRequest, model: string): string {
  const doc: Record<string, unknown> = {
    question: relayMessages(req.messages),
    ...req.params,
  };
  if (model !== RELAY_DEFAULT_MODEL) doc.model = model;
  if (req.text) doc.format = req.text.format;
  return jsonText(doc);
}

/**
 * Reads a reply document: a JSON string is the answer; `{error}` a failure.
 *
 * @param text the reply file
 * @returns the processed reply
 */
export function relayReply(text: string): BackendReply {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw responseError("relay", `sent a reply that is not JSON: ${clipEnd(text, 100, "")}`, e);
  }
  if (typeof v === "string") return { items: v === "" ? [] : [{ type: "text", text: v }] };
  if (v && typeof v === "object" && "error" in v) {
    throw responseError("relay", `worker failed: ${String((v as { error: unknown }).error)}`);
  }
  throw responseError("relay", `sent a reply that is neither a text nor an error`);
}

async function query(req: BackendRequest, ctx: QueryContext): Promise<BackendReply> {
  const extra = ctx.settings.extra ?? {};
  const server = extra.server;
  if (!server) {
    throw new ScoutError(
      "config",
      `No relay server: set "server" (an ssh host, or a local queue directory) in the endpoint file or config, or SCOUT_RELAY_SERVER`,
      { backend: "relay" },
    );
  }
  if (req.tools.length) {
    ctx.warn?.(
      `relay: ${req.tools.length} tool definition(s) not sent; the worker answers with its own tools`,
    );
  }
  const t = relayTransport(server, RELAY_ASK_DIR, extra.ssh_command ?? "ssh");
  const body = relayRequest(req, ctx.settings.model);
  const id = md5hex(body);
  const reply = `reply/${id}.json`;
  const done = await t.get(reply);
  if (done !== null) {
    if (!isErrorReply(done)) return relayReply(done);
    // a failure is not an answer: asking again reaches the provider again (R167-3)
    await t.remove(reply);
  }
  await t.put(`${id}.json`, body);
  const text = await waitFor(t, reply, ctx.settings.timeoutMs, ctx.signal);
  if (text === null) {
    throw relayTimeout(t.label, id, ctx.settings.timeoutMs, "process", {
      backend: "relay",
      server,
    });
  }
  // consumed by the client that reads it: the next ask queues the request anew (R167-3)
  if (isErrorReply(text)) await t.remove(reply);
  return relayReply(text);
}

/**
 * The error of a relay client that waited `request_timeout` for a reply: it
 * names the queue, the request id and the worker command to run there; not
 * retryable (another wait of the same length would only double it: R167-7).
 *
 * @param label the queue (`/dir` or `host:dir`)
 * @param id the request id
 * @param timeoutMs how long the client waited
 * @param worker `process` or `process_queries`
 * @param context further error fields
 * @returns the error (`timeout`)
 */
export function relayTimeout(
  label: string,
  id: string,
  timeoutMs: number,
  worker: "process" | "process_queries",
  context: Record<string, unknown>,
): ScoutError {
  const secs = Number((timeoutMs / 1000).toFixed(timeoutMs < 10_000 ? 1 : 0));
  return new ScoutError(
    "timeout",
    `No relay reply from ${label} for request ${id} after ${secs} s (is "scout-ai llm ${worker}" running there?)`,
    { ...context, request: id, timeoutMs, retryable: false },
  );
}

/**
 * Whether a reply file is a worker's `{"error": …}` (a failed request), not an answer.
 *
 * @param text the reply file
 * @returns true for an error reply
 */
export function isErrorReply(text: string): boolean {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) && "error" in v;
  } catch {
    return false;
  }
}

/** The `relay` backend. */
export const relayBackend: Backend = {
  defaults: {
    tag: "relay",
    model: RELAY_DEFAULT_MODEL,
    keyEnv: [],
    modelEnv: [],
    extra: [
      { name: "server", env: ["SCOUT_RELAY_SERVER"] },
      { name: "ssh_command", env: ["SCOUT_SSH"] },
    ],
  },
  query,
};
