/**
 * The chats one report has read (issue 16): per chat only what rendering
 * needs at once — its path, its own tokens, its receipt problems — while
 * the rest of its facts (every meta record of its evidence) waits as JSON
 * text in a {@link TextSpill} until an event, a job's tokens or the JSON
 * document asks for it again. Holding the parsed evidence of every chat of
 * a store is what made `llm prov`'s memory grow with the store.
 *
 * @module
 */
import type { ReceiptProblem } from "../chat/receipts.ts";
import { type ChatFacts, type ControlJobs, factsFromText } from "./chat_facts.ts";
import type { ChatFailure } from "./chat_failure.ts";
import { factsText } from "./facts_pool.ts";
import { type TextSpill, textSpill } from "./spill.ts";
import { collectIfGrown, collectPerText } from "../util/gc.ts";
import { sortedHas } from "./typed.ts";

/** Chats between two checks for garbage (`collectIfGrown`). */
const GC_EVERY = 250;
/**
 * Characters of facts text between two full collections once the process
 * is above {@link GC_TEXT_FLOOR_MB} (`collectPerText`): on the 2 GB bench
 * store, about every 1,200 chats in the second half of the walk; its peak
 * ~15 MB lower for ~5 % more CPU.
 */
const GC_TEXT = 4_000_000;
/** Resident size below which the facts text triggers no collection. */
const GC_TEXT_FLOOR_MB = 200;
/** Parsed facts kept for reuse: events and jobs ask for nearby chats in runs. */
const CACHED = 64;

/** The chats of one report, by read order (`seq`). */
export interface ChatStore {
  /** Chats stored. */
  readonly count: number;
  /** Stores a chat's facts; returns its `seq`. */
  add(facts: ChatFacts): number;
  /** The `seq` of a chat path, or undefined when it was not read. */
  seqOf(path: string): number | undefined;
  /** The path of chat `seq`. */
  path(seq: number): string;
  /** The facts of chat `seq`, read back (shared: do not modify). */
  facts(seq: number): ChatFacts;
  /** The facts of chat `seq` as text (`factsToText`). */
  text(seq: number): string;
  /** Its receipt problems (empty for most chats). */
  problems(seq: number): readonly ReceiptProblem[];
  /** Whether it holds receipt evidence. */
  hasReceipts(seq: number): boolean;
  /** The chats with control lines that run or include jobs, by `seq`, in read order. */
  controlJobs(): ReadonlyMap<number, ControlJobs>;
  /** The chats whose last inference failed (R127-2), by path. */
  failures(): ReadonlyMap<string, ChatFailure>;
  /** Releases the spilled texts. */
  close(): void;
}

/**
 * An empty store.
 *
 * @param o `spillAt`: characters of facts kept in memory before they move to a
 *   temporary file (see `textSpill`)
 * @returns the store
 */
export function chatStore(o: { spillAt?: number } = {}): ChatStore {
  const spill: TextSpill = textSpill({ spillAt: o.spillAt });
  const paths: string[] = [];
  const seqs = new Map<string, number>();
  const receipts: number[] = []; // seqs with receipt evidence
  const problems = new Map<number, ReceiptProblem[]>();
  const controlJobs = new Map<number, ControlJobs>(); // few chats have any
  const failures = new Map<string, ChatFailure>(); // few chats failed
  const cache = new Map<number, ChatFacts>();
  return {
    get count() {
      return paths.length;
    },
    add(facts) {
      const seq = paths.length;
      paths.push(facts.path);
      seqs.set(facts.path, seq);
      const text = factsText(facts);
      spill.add(text);
      collectPerText(text.length, GC_TEXT, GC_TEXT_FLOOR_MB);
      if (facts.evidence.receipts.length > 0) receipts.push(seq);
      if (facts.evidence.receiptProblems.length > 0) {
        problems.set(seq, facts.evidence.receiptProblems);
      }
      if (facts.controlJobs) controlJobs.set(seq, facts.controlJobs);
      if (facts.failure) failures.set(facts.path, facts.failure);
      if (seq % GC_EVERY === GC_EVERY - 1) collectIfGrown();
      return seq;
    },
    seqOf: (path) => seqs.get(path),
    path: (seq) => paths[seq]!,
    facts(seq) {
      let f = cache.get(seq);
      if (f !== undefined) {
        cache.delete(seq); // most recently used last
      } else {
        f = factsFromText(paths[seq]!, spill.get(seq));
        if (cache.size >= CACHED) cache.delete(cache.keys().next().value!);
      }
      cache.set(seq, f);
      return f;
    },
    text: (seq) => spill.get(seq),
    problems: (seq) => problems.get(seq) ?? [],
    hasReceipts: (seq) => sortedHas(receipts, seq),
    controlJobs: () => controlJobs,
    failures: () => failures,
    close() {
      cache.clear();
      spill.close();
    },
  };
}
