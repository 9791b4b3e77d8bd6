/**
 * Key aliases (`agents-core.md` notes, §1.4 step 2): a rerun of a failed ask
 * job runs as another job (`rerun-<n>`), whose path and files dir its agent is
 * told (the step-4 system message); in the inference cache's keys — and only
 * there — each alias's `from` (the rerun's path) is written as its `to` (the
 * first run's), so the rounds the failed run paid for replay. A replayed reply
 * is told the other way round (the first run's paths named in its texts and
 * tool-call arguments become the rerun's, so its tools act on the rerun's
 * files, not on the kept job's), and a live round's reply is stored in the
 * first run's terms, so a later rerun replays it as its own too. Outside a
 * rerun there are no aliases and nothing is rewritten: keys stay byte for
 * byte what they were.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Message } from "../chat/types.ts";
import type { RecordedRound } from "./ask_loop_types.ts";
import type { ReplyItem } from "./types.ts";

/** One stand-in: `from` (what the run is told) is keyed as `to` (what the first run was told). */
export interface KeyAlias {
  /** The string in this run's messages (a rerun job's path). */
  from: string;
  /** The string its keys hold instead (the first run's). */
  to: string;
}

const scope = new AsyncLocalStorage<readonly KeyAlias[]>();

/**
 * Runs `fn` with `aliases` added to those in force (asks it runs, at any
 * depth, key their rounds with them).
 *
 * @param aliases the stand-ins (none: `fn` runs as it is)
 * @param fn what to run
 * @returns what `fn` returns
 */
export function withKeyAliases<T>(aliases: readonly KeyAlias[], fn: () => T): T {
  const own = aliases.filter((a) => a.from !== "" && a.from !== a.to);
  if (own.length === 0) return fn();
  return scope.run([...scope.getStore() ?? [], ...own], fn);
}

/** The aliases in force for an ask started here (undefined: none). */
export function keyAliases(): readonly KeyAlias[] | undefined {
  const list = scope.getStore();
  return list && list.length > 0 ? list : undefined;
}

function replaceAll(s: string, pairs: readonly (readonly [string, string])[]): string {
  let out = s;
  for (const [from, to] of pairs) if (out.includes(from)) out = out.split(from).join(to);
  return out;
}

/** `value` with every string in it rewritten (arrays and plain objects walked; the rest kept). */
function rewrite(value: unknown, pairs: readonly (readonly [string, string])[]): unknown {
  if (typeof value === "string") return replaceAll(value, pairs);
  if (Array.isArray(value)) return value.map((v) => rewrite(v, pairs));
  if (
    value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, pairs)]));
  }
  return value;
}

function mentions(value: unknown, pairs: readonly (readonly [string, string])[]): boolean {
  if (typeof value === "string") return pairs.some(([from]) => value.includes(from));
  if (Array.isArray(value)) return value.some((v) => mentions(v, pairs));
  if (value !== null && typeof value === "object") {
    return Object.values(value).some((v) => mentions(v, pairs));
  }
  return false;
}

/**
 * The messages of a key in the first run's terms: each message that names an
 * alias's `from` is copied with it replaced; the others are the same objects
 * (the key remembers their bytes). Each copy is remembered per message.
 *
 * @param aliases the aliases in force
 * @returns the rewriter of one ask
 */
export function keyMessages(aliases: readonly KeyAlias[]): (messages: Message[]) => Message[] {
  const pairs = aliases.map((a) => [a.from, a.to] as const);
  const seen = new WeakMap<Message, { content: unknown; out: Message }>();
  const one = (m: Message): Message => {
    const known = seen.get(m);
    if (known && known.content === m.content) return known.out;
    const out = mentions(m, pairs) ? rewrite(m, pairs) as Message : m;
    seen.set(m, { content: m.content, out });
    return out;
  };
  return (messages) => messages.map(one);
}

/** A reply's items with their texts, arguments and messages rewritten; signed thinking kept. */
function rewriteItems(
  items: ReplyItem[],
  pairs: readonly (readonly [string, string])[],
): ReplyItem[] {
  return items.map((item): ReplyItem => {
    switch (item.type) {
      case "text":
        return { ...item, text: replaceAll(item.text, pairs) };
      case "call":
        return { ...item, arguments: rewrite(item.arguments, pairs) };
      case "hosted_call":
        return {
          ...item,
          arguments: rewrite(item.arguments, pairs),
          output: replaceAll(item.output, pairs),
        };
      case "message":
        return {
          ...item,
          message: {
            ...item.message,
            content: rewrite(item.message.content, pairs) as Message["content"],
          },
        };
    }
  });
}

/**
 * A cached round as this run replays it: the first run's strings (each
 * alias's `to`) in its reply become this run's (`from`).
 *
 * @param recorded the round as stored
 * @param aliases the aliases in force
 * @returns the round to replay
 */
export function replayedRound(
  recorded: RecordedRound,
  aliases: readonly KeyAlias[],
): RecordedRound {
  return { ...recorded, items: rewriteItems(recorded.items, aliases.map((a) => [a.to, a.from])) };
}

/**
 * A live round as it is stored: this run's strings in its reply written as
 * the first run's, as its key is.
 *
 * @param recorded the round as played
 * @param aliases the aliases in force
 * @returns the round to store
 */
export function storedRound(recorded: RecordedRound, aliases: readonly KeyAlias[]): RecordedRound {
  return { ...recorded, items: rewriteItems(recorded.items, aliases.map((a) => [a.from, a.to])) };
}
