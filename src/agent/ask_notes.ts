/**
 * What the user learns of a nested ask (R106-2, [TS-FIX]): an ask inside
 * another one — a specialist, or the agent a chat-task job runs — has no
 * printer of its own, and a specialist's failure becomes a tool output for
 * its caller's model, which carries no snapshot or url. So the retries of
 * such an ask and a specialist's final failure are warned through the ask's
 * `warn` (the CLI prints it on stderr), naming the agent, its conversation,
 * its caller and its job, and appended to the `.info` messages of the job it
 * works in; its failure snapshot names the same (`asker`); a failed
 * specialist's conversation ends with a record of the failure. A cached
 * round tells the retries it met when it was recorded again (R121-2): noted
 * alike in the job's messages, so a replay writes the same `.info`, and
 * warned saying they are replayed.
 *
 * @module
 */
import type { Message } from "../chat/types.ts";
import { serializeMeta } from "../chat/meta.ts";
import { isScoutError } from "../errors.ts";
import type { AskEvent } from "../llm/ask_loop_types.ts";
import type { Asker } from "../llm/ask_types.ts";
import { REPLAYED, retryNotice } from "../llm/retry.ts";
import type { JobContext } from "../workflow/job_types.ts";
import { askChain } from "./ask_chain.ts";
import type { Agent } from "./types.ts";

/** Where an ask of an agent stands: whose it is, how to name it, where to note it. */
export interface AskPlace {
  /** Names of the agent, its conversation, caller and job (the snapshot's `asked_by`). */
  asker: Asker;
  /** Inside another ask or a job: its retries are noted ({@link noteRetries}). */
  nested: boolean;
  /** The job it works in (its `.info` gets the notes), or null. */
  job: JobContext | null;
}

function isContext(job: Agent["job"]): job is JobContext {
  return typeof (job as JobContext | null)?.message === "function";
}

/**
 * Where an ask of `agent` stands, from the chain of asks around the code
 * running now: inside the agent's ask (the chain ends with it) or just
 * before it (a specialist runner's: the chain ends with its caller). Its
 * conversation is its key in its caller's society; its job the nearest
 * running job of the chain.
 *
 * @param agent the agent asked
 * @returns the place
 */
export function askPlace(agent: Agent): AskPlace {
  const chain = askChain();
  const at = chain.indexOf(agent);
  const before = at >= 0 ? chain.slice(0, at) : chain;
  const caller = before.at(-1);
  const key = caller && Object.keys(caller.chats).find((k) => caller.chats[k] === agent);
  const job = [...before, agent].reverse().map((a) => a.job).find(isContext) ?? null;
  const asker: Asker = { agent: agent.name ?? "(unnamed)" };
  if (key !== undefined) {
    asker.conversation = key.slice(key.indexOf("/") + 1);
    asker.caller = caller!.name ?? "(unnamed)";
  }
  if (job !== null) asker.job = job.shortPath;
  return { asker, nested: before.length > 0 || isContext(agent.job), job };
}

/**
 * How a note names the ask: `agent Librarian (conversation _oneshot-1, asked
 * by Researcher, job Planner/ask/x.chat)`; without the job in the job's own
 * `.info`.
 *
 * @param asker the names
 * @param withJob whether to name the job
 * @returns the label
 */
export function askerLabel(asker: Asker, withJob = true): string {
  const parts: string[] = [];
  if (asker.conversation !== undefined) parts.push(`conversation ${asker.conversation}`);
  if (asker.caller !== undefined) parts.push(`asked by ${asker.caller}`);
  if (withJob && asker.job !== undefined) parts.push(`job ${asker.job}`);
  return `agent ${asker.agent}` + (parts.length ? ` (${parts.join(", ")})` : "");
}

/**
 * Warns `text` after the label (and `aside`), and appends it to the job's
 * messages (never failing the ask).
 */
function note(
  place: AskPlace,
  warn: ((m: string) => void) | undefined,
  text: string,
  aside = "",
): void {
  warn?.(`${askerLabel(place.asker)}${text}${aside}`);
  place.job?.message(`${askerLabel(place.asker, false)}${text}`).catch(() => {});
}

/**
 * The progress hook of a nested ask: each retry noted, then passed on to
 * `onEvent` (when there is one) like every other event.
 *
 * @param place where the ask stands
 * @param warn the ask's warnings
 * @param onEvent the ask's own progress hook
 * @returns the hook
 */
export function noteRetries(
  place: AskPlace,
  warn: ((m: string) => void) | undefined,
  onEvent: ((e: AskEvent) => void) | undefined,
): (e: AskEvent) => void {
  return (e) => {
    // a replayed one as recorded in the job's messages, so a replay writes the same `.info`
    if (e.type === "retry") note(place, warn, `: ${retryNotice(e)}`, e.replayed ? REPLAYED : "");
    onEvent?.(e);
  };
}

/**
 * Notes a specialist's final failure, whose error its caller's model gets as
 * a tool output: the message the user needs (endpoint, url, snapshot).
 *
 * @param place where the ask stood
 * @param warn the warnings of the specialist's runtime
 * @param e the failure
 */
export function noteFailure(place: AskPlace, warn: ((m: string) => void) | undefined, e: unknown) {
  note(place, warn, ` failed: ${e instanceof Error ? e.message : String(e)}`);
}

/**
 * The record a failed specialist's conversation ends with (its society log
 * then shows the failure): a `meta:` line, as a chat records an incomplete
 * reply (`inference.md` notes §3), `incomplete=true reason=error
 * error=<message>` — the message without the notes for the user (no
 * snapshot path, no url: the conversation may be asked again, and its
 * records are part of its next request's cache key).
 *
 * @param e the failure
 * @returns the meta message
 */
export function failureRecord(e: unknown): Message {
  const base = isScoutError(e) ? e.baseMessage : undefined;
  const error = typeof base === "string" ? base : e instanceof Error ? e.message : String(e);
  return { role: "meta", content: serializeMeta({ incomplete: "true", reason: "error", error }) };
}
