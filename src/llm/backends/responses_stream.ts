/**
 * A streamed Responses reply read into one response object (`inference.md`
 * §3.7): text deltas passed on as they come, the terminal event's response
 * (`response.completed`, `.incomplete`, `.failed`) taken whole — and its
 * output rebuilt from the streamed items when the server sent them only as
 * events. ChatGPT/Codex, LiteLLM, new-api and other proxies send each item as
 * `response.output_item.done` and end with `output: []` or no `output`; the
 * items are then those `done` items in `output_index` order, an item whose
 * `done` never came built from its `added` event and its deltas.
 *
 * @module
 */
import { reportedErrorOf } from "../errors.ts";
import type { QueryContext } from "../types.ts";

type Item = Record<string, unknown>;

/** What the stream said about one output item (by `output_index`). */
interface Streamed {
  /** The item of `response.output_item.done`. */
  done?: Item;
  /** The item of `response.output_item.added`. */
  added?: Item;
  /** `response.output_text.delta` pieces, by `content_index`. */
  text: string[];
  /** `response.function_call_arguments.delta` pieces. */
  args: string;
}

/** The events' items collected so far. */
type Collected = Map<number, Streamed>;

function slot(items: Collected, ev: Record<string, unknown>): Streamed | null {
  const i = ev.output_index;
  if (typeof i !== "number") return null;
  let s = items.get(i);
  if (!s) items.set(i, s = { text: [], args: "" });
  return s;
}

/** Records what one event says about an output item. */
function collect(items: Collected, ev: Record<string, unknown>): void {
  const s = slot(items, ev);
  if (!s) return;
  const item = ev.item && typeof ev.item === "object" ? ev.item as Item : undefined;
  if (ev.type === "response.output_item.done" && item) s.done = item;
  else if (ev.type === "response.output_item.added" && item) s.added = item;
  else if (ev.type === "response.output_text.delta" && typeof ev.delta === "string") {
    const c = typeof ev.content_index === "number" ? ev.content_index : 0;
    s.text[c] = (s.text[c] ?? "") + ev.delta;
  } else if (
    ev.type === "response.function_call_arguments.delta" && typeof ev.delta === "string"
  ) s.args += ev.delta;
}

/** An item whose `done` never came: its `added` item with the deltas put in. */
function fromDeltas(s: Streamed): Item | null {
  const base = s.added ?? (s.args !== "" ? null : { type: "message", role: "assistant" });
  if (!base) return null;
  if (base.type === "function_call") return { ...base, arguments: s.args || base.arguments };
  if (base.type !== "message") return base;
  const texts = s.text.filter((t) => typeof t === "string" && t !== "");
  if (!texts.length) return Array.isArray(base.content) && base.content.length ? base : null;
  return { ...base, content: texts.map((text) => ({ type: "output_text", text })) };
}

/**
 * The output of a streamed response: the terminal response's own when it
 * holds at least the items streamed, else the streamed items.
 *
 * @param final the terminal response's `output` (may be missing)
 * @param items the items collected from the events
 * @returns the output list, or `final` unchanged when nothing was streamed
 */
export function streamedOutput(final: unknown, items: Collected): unknown {
  if (Array.isArray(final) && final.length >= items.size) return final;
  if (items.size === 0) return final;
  return [...items.keys()].sort((a, b) => a - b).flatMap((i) => {
    const s = items.get(i)!;
    const item = s.done ?? fromDeltas(s);
    return item ? [item] : [];
  });
}

/**
 * Reads a Responses event stream into the terminal response, its output
 * completed from the streamed items when the server left it empty or out.
 *
 * @param stream the SDK's event stream
 * @param ctx the query context (text deltas go to `onDelta`)
 * @param backend backend name for errors
 * @param progress counts the events received
 * @returns the response object, or undefined when no terminal event came
 * @throws ScoutError for an `error` event, typed as its HTTP form (`reportedErrorOf`)
 */
export async function readResponsesStream(
  stream: AsyncIterable<Record<string, unknown>>,
  ctx: QueryContext,
  backend: string,
  progress: { events: number },
): Promise<unknown> {
  let raw: Record<string, unknown> | undefined;
  const items: Collected = new Map();
  for await (const ev of stream) {
    progress.events++;
    collect(items, ev);
    if (ev.type === "response.output_text.delta" && typeof ev.delta === "string") {
      ctx.onDelta?.(ev.delta);
    } else if (
      ev.type === "response.completed" || ev.type === "response.incomplete" ||
      ev.type === "response.failed"
    ) {
      raw = ev.response as Record<string, unknown>;
    } else if (ev.type === "error") {
      throw reportedErrorOf(backend, ev, true);
    }
  }
  if (!raw || typeof raw !== "object") return raw;
  const output = streamedOutput(raw.output, items);
  return output === raw.output ? raw : { ...raw, output };
}
