/**
 * How the walk reads chats (issue 5). Reading, parsing and extracting a
 * chat's facts is most of a big walk's time, and every chat's facts are
 * independent of the others', so once enough chats are queued helper
 * threads (`facts_worker.ts`; one per spare core, at most two) read them ahead
 * while the walk goes on.
 *
 * The walk stays synchronous and its order stays the same: it asks for the
 * facts of its queue's chats one by one, in order. Each queued chat has a
 * claim slot in shared memory; whoever claims a chat first (a helper, or
 * the walk when it gets there first) extracts it. While a helper works on
 * the chat the walk needs, the walk reads the newest queued chats itself,
 * downward, until it meets the helpers coming up from the oldest (on the
 * 200 MB bench store it takes 10–15% of the chats and the walk ends ~5%
 * sooner); its young garbage is collected every {@link STOLEN_PER_GC}
 * chats, or the text it parsed would pile up on its big heap (+45 MB peak
 * instead of +20). Nobody reads more than {@link READ_AHEAD} chats past
 * the one the walk needs: what is read ahead waits on the walk's heap. Helpers
 * that never start or stop answering only cost time: the walk then reads
 * everything itself. Results are the same either way (one function
 * computes them, and their JSON text carries them across exactly), so
 * output does not depend on which thread read what.
 *
 * @module
 */
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from "node:worker_threads";
import type { LoadedChat } from "./types.ts";
import type { ReceiptProblem } from "../chat/receipts.ts";
import { agentMetaEvidence } from "../chat/receipts.ts";
import { availableParallelism } from "node:os";
import { inCompiledBinary } from "../util/binary.ts";
import { collectYoungGarbage } from "../util/gc.ts";
import { loadRawSync } from "../chat/load.ts";
import {
  type ChatFacts,
  chatFactsOf,
  factsFromText,
  factsToText,
  readChatFacts,
} from "./chat_facts.ts";

/** The JSON text facts read on a helper thread came in (`factsToText` of them). */
const TEXTS = new WeakMap<ChatFacts, string>();

function withText(facts: ChatFacts, text: string): ChatFacts {
  TEXTS.set(facts, text);
  return facts;
}

/**
 * The facts as `factsToText` writes them: the text they came in from a
 * helper thread, else written now.
 *
 * @param facts facts of one chat
 * @returns their JSON text
 */
export function factsText(facts: ChatFacts): string {
  return TEXTS.get(facts) ?? factsToText(facts);
}

/** Claim states of a queued chat (one byte each in shared memory). */
export const CLAIM = { free: 0, walk: 1, helper: 2 } as const;

/**
 * Helper threads: one per core but the walk's own, at most two (none on one
 * core). On a 2-core machine a second helper contends with the walk's
 * thread: tree of the 200 MB store 1.03 vs 1.07 s in the binary (bun) but
 * 1.68 vs 1.45 s and +60 MB under `deno run` (V8 isolates cost more).
 */
const HELPERS = Math.max(0, Math.min(2, availableParallelism() - 1));
/** Chats the helpers can be offered (1 MB of claims); later ones are read by the walk. */
const CAPACITY = 1 << 20;
/**
 * How far ahead of the walk chats are read (by a helper, or by the walk while
 * it waits): at most this many queued chats past the one the walk needs.
 * Unbounded, a helper that reads faster than the walk consumes ran ahead by a
 * fifth of the store (5,830 of 29,931 chats on the 626 MB bench store), and
 * their facts waited on the walk's heap: +60 MB at the peak (issue 16).
 */
export const READ_AHEAD = 512;
/** Without any answer from the helpers for this long, the walk stops waiting for them. */
const STALL_MS = 10_000;
/**
 * Default number of queued chats that makes a helper worth starting. A
 * thread costs 50–100 ms to start and warm up: below about a thousand chats
 * the walk reads them as fast alone (a 1,000-chat store: 0.18 s either way
 * from the CLI; an in-process report of 500 chats, JIT warm: 74 ms alone,
 * 175 ms starting a helper each time).
 */
const HELPER_THRESHOLD = 1000;

/** Reads chats for the walk. */
export interface ChatReader {
  /** A chat node joined the walk's queue (it will be read later). */
  discovered(path: string): void;
  /** The walk expanded a node: hand the chats it queued to the helpers (one message). */
  flush(): void;
  /**
   * The facts of a chat (each queued chat is read once).
   *
   * @throws ScoutError `not_found` / `io` naming the path
   */
  read(path: string): ChatFacts;
  /**
   * How many queued chats have been read ahead of the walk (by a helper, or
   * by the walk while it waited) and wait to be taken; what the helpers have
   * posted is received first. At most {@link READ_AHEAD} while the walk
   * stands still (tests wait on it rather than on a clock).
   */
  readAhead(): number;
  /** Stops the helpers, if any. */
  close(): void;
}

/** Options of {@link chatReader}. */
export interface ChatReaderOptions {
  /** The traversal's `onChat`: it needs the messages, so every chat is read on this thread. */
  onChat?: (chat: LoadedChat) => void;
  /** Whether receipts are followed (what `onChat` is told: `LoadedChat.receipts` is null otherwise). */
  agentJob: boolean;
  /** Queued chats that start the helper (default 1,000; `Infinity`: never). */
  helperThreshold?: number;
  /** Pair each chat's tool calls too (`ChatFacts.toolCalls`), on whichever thread reads it. */
  toolCalls?: boolean;
}

/**
 * A chat reader for one walk: on this thread when `onChat` wants messages
 * or the walk stays small, with a helper thread once enough chats wait.
 *
 * @param o options
 * @returns the reader (call `close` when the walk ends)
 */
export function chatReader(o: ChatReaderOptions): ChatReader {
  const onChat = o.onChat;
  if (onChat !== undefined) {
    return {
      discovered() {},
      flush() {},
      read(path) {
        const messages = loadRawSync(path);
        const problems: ReceiptProblem[] = [];
        const receipts = agentMetaEvidence(messages, { source: path, warnings: problems });
        onChat({
          path,
          messages,
          receipts: o.agentJob ? receipts : null,
          receiptProblems: o.agentJob ? problems : null,
        });
        const facts = chatFactsOf({ path, messages, receipts, receiptProblems: problems }, {
          toolCalls: o.toolCalls === true,
        });
        return facts;
      },
      readAhead: () => 0,
      close() {},
    };
  }
  const threshold = o.helperThreshold ?? HELPER_THRESHOLD;
  const paths: string[] = []; // queued chats by sequence number
  const seqOf = new Map<string, number>();
  let readCount = 0; // queued chats read so far
  let helper: Helper | null = null;
  let helperTried = false;
  const toolCalls = o.toolCalls === true;
  // (the report keeps no evidence object: no need to detach strings from the file text)
  const read = (path: string) => readChatFacts(path, { detach: false, toolCalls });
  const take = (path: string): ChatFacts => {
    const seq = seqOf.get(path);
    if (seq === undefined) return read(path);
    seqOf.delete(path);
    readCount++;
    if (helper === null) return read(path);
    helper.flush();
    return helper.take(seq);
  };
  return {
    discovered(path) {
      if (seqOf.has(path) || paths.length >= CAPACITY) return;
      seqOf.set(path, paths.length);
      paths.push(path);
      if (helper !== null) helper.offer(paths.length - 1);
      else if (!helperTried && paths.length >= threshold) {
        helperTried = true;
        helper = startHelper(paths, toolCalls);
        if (helper !== null) { for (let s = readCount; s < paths.length; s++) helper.offer(s); }
      }
    },
    flush() {
      helper?.flush();
    },
    read: take,
    readAhead: () => helper?.readAhead() ?? 0,
    close() {
      helper?.stop();
      helper = null;
    },
  };
}

/** The walk's side of the running helper threads. */
interface Helper {
  /** Offers queued chat `seq` to the helpers (with the next {@link Helper.flush}). */
  offer(seq: number): void;
  /** Posts the offers made since the last flush, as one message. */
  flush(): void;
  /** The facts of queued chat `seq`, from whoever claims it. */
  take(seq: number): ChatFacts;
  /** Chats read ahead and not taken yet (see {@link ChatReader.readAhead}). */
  readAhead(): number;
  /** Terminates the helpers. */
  stop(): void;
}

/**
 * Where the helper's code is. Inside the compiled binary every module
 * reports the binary's own URL (`file:///$bunfs/root/scout-ai`), and the
 * helper is embedded at its source path (the build lists it as a second
 * entrypoint); from source it sits next to this file.
 */
function helperUrl(): URL {
  return inCompiledBinary(import.meta.url)
    ? new URL("./src/provenance/facts_worker.ts", import.meta.url)
    : new URL("./facts_worker.ts", import.meta.url);
}

function startHelper(paths: readonly string[], toolCalls: boolean): Helper | null {
  // (the report keeps no evidence object: no need to detach strings from the file text)
  const read = (path: string) => readChatFacts(path, { detach: false, toolCalls });
  if (HELPERS === 0) return null;
  const claims = new Uint8Array(new SharedArrayBuffer(CAPACITY));
  const answered = new Int32Array(new SharedArrayBuffer(4)); // results the helpers have posted
  // [the queued chat the walk needs now, 1 once the walk no longer needs the helpers]
  const walkAt = new Int32Array(new SharedArrayBuffer(8));
  const ports: MessagePort[] = [];
  const workers: Worker[] = [];
  for (let h = 0; h < HELPERS; h++) {
    const { port1, port2 } = new MessageChannel();
    try {
      const worker = new Worker(helperUrl(), {
        workerData: { port: port2, claims, answered, walkAt, toolCalls },
        transferList: [port2],
      });
      // A helper that fails to start never claims a chat: the others (or the walk) read them.
      worker.on("error", () => {});
      worker.unref();
      workers.push(worker);
      ports.push(port1);
    } catch {
      port1.close(); // no threads here
    }
  }
  if (workers.length === 0) return null; // the walk reads everything itself

  // Facts read ahead, by the helper or by the walk while it waited (null: unreadable there;
  // the walk reads it again when it gets to it, and reports why).
  const results = new Map<number, ChatFacts | null>();
  let offered = -1; // offers from here on are not posted yet (-1: none)
  let offeredEnd = -1;
  let received = 0;
  let alive = true;

  const drain = () => {
    for (const port of ports) {
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
        for (const [seq, json] of m.message as [number, string | null][]) {
          results.set(seq, json === null ? null : withText(factsFromText(paths[seq]!, json), json));
          received++;
        }
      }
    }
  };
  const claim = (seq: number) => Atomics.compareExchange(claims, seq, CLAIM.free, CLAIM.walk);

  // The walk reads ahead the newest queued chats (within READ_AHEAD), downward, while it waits.
  let stolenCount = 0;
  let stealAt = -1; // next chat to try
  let stealTop = -1; // newest chat when this downward run started
  /** Reads one chat ahead of the helpers, newer than `need`; false when there is none left. */
  const stealOne = (need: number): boolean => {
    for (;;) {
      if (stealAt <= need) {
        const top = Math.min(paths.length - 1, need + READ_AHEAD);
        if (top <= stealTop) return false; // nothing new since the last run
        stealTop = stealAt = top;
        continue;
      }
      const s = stealAt--;
      if (claim(s) !== CLAIM.free) {
        stealAt = need; // a helper got here: it claims in order, so everything below is taken
        continue;
      }
      let facts: ChatFacts | null = null;
      try {
        facts = read(paths[s]!);
      } catch { /* read again, and reported, when the walk gets there */ }
      results.set(s, facts); // claimed by the walk: take() finds it among the results
      if (++stolenCount % STOLEN_PER_GC === 0) collectYoungGarbage();
      return true;
    }
  };
  return {
    offer(seq) {
      // Offers come in sequence order: a batch is a range of sequence numbers.
      if (offered === -1) offered = seq;
      offeredEnd = seq + 1;
    },
    flush() {
      if (offered === -1) return;
      // Every helper sees every offer; the claims decide who reads what.
      const batch = [offered, paths.slice(offered, offeredEnd)];
      if (alive) { for (const port of ports) port.postMessage(batch); }
      offered = -1;
    },
    take(seq) {
      if (seq > walkAt[0]!) {
        Atomics.store(walkAt, 0, seq);
        // (a waiting helper wakes by its timeout otherwise; waking it every few chats is enough)
        if (seq % NOTIFY_EVERY === 0) Atomics.notify(walkAt, 0);
      }
      if (!alive || claim(seq) === CLAIM.free) return read(paths[seq]!);
      let since = Date.now();
      let seen = received;
      for (;;) {
        const posted = Atomics.load(answered, 0);
        drain();
        if (results.has(seq)) {
          const facts = results.get(seq)!;
          results.delete(seq);
          return facts ?? read(paths[seq]!); // null: unreadable ahead; read it here
        }
        if (received !== seen) {
          seen = received;
          since = Date.now();
        } else if (Date.now() - since > STALL_MS) {
          alive = false; // the helper stopped answering: read everything here from now on
          return read(paths[seq]!);
        }
        if (stealOne(seq)) continue; // rather than wait, read a later chat
        // Nothing left to read ahead: wait for the helper's next answer (or a
        // moment, if one is on its way).
        Atomics.wait(answered, 0, posted, posted > received ? 1 : 50);
      }
    },
    readAhead() {
      drain();
      return results.size;
    },
    stop() {
      Atomics.store(walkAt, 1, 1);
      Atomics.notify(walkAt, 0);
      alive = false;
      for (const port of ports) port.close();
      for (const worker of workers) void worker.terminate();
    },
  };
}

/** The walk wakes a helper waiting for it to catch up every this many chats. */
const NOTIFY_EVERY = 32;

/** Chats the walk reads ahead itself between two young-generation collections. */
const STOLEN_PER_GC = 100;
