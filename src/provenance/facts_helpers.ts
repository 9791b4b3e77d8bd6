/**
 * The helper threads of the walk's chat reader (`facts_pool.ts`): started
 * once enough chats are queued, they read queued chats' facts ahead
 * (`facts_worker.ts`), each chat claimed in shared memory by whoever gets to
 * it first; the walk takes each chat's facts in order, reading later chats
 * itself while it waits, and everything itself once the helpers stop
 * answering.
 *
 * @module
 */
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from "node:worker_threads";
import { availableParallelism } from "node:os";
import { inCompiledBinary } from "../util/binary.ts";
import { collectYoungGarbage } from "../util/gc.ts";
import { type ChatFacts, factsFromText, factsToText, readChatFacts } from "./chat_facts.ts";

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
export const CAPACITY = 1 << 20;
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
/** The walk's side of the running helper threads. */
export interface Helper {
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

/** The helper threads, and the memory they share with the walk. */
interface Helpers {
  /** Per queued chat: who claimed it ({@link CLAIM}). */
  readonly claims: Uint8Array;
  /** Results the helpers have posted. */
  readonly answered: Int32Array;
  /** [the queued chat the walk needs now, 1 once the walk no longer needs the helpers] */
  readonly walkAt: Int32Array;
  readonly ports: MessagePort[];
  readonly workers: Worker[];
}

/** Starts the helper threads; null when none could start (the walk reads everything itself). */
function spawnHelpers(toolCalls: boolean): Helpers | null {
  const claims = new Uint8Array(new SharedArrayBuffer(CAPACITY));
  const answered = new Int32Array(new SharedArrayBuffer(4));
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
  return workers.length === 0 ? null : { claims, answered, walkAt, ports, workers };
}

/** The walk's side of the helpers. */
interface Pool extends Helpers {
  readonly paths: readonly string[];
  /** Reads a chat's facts on the walk's thread. */
  readonly read: (path: string) => ChatFacts;
  /**
   * Facts read ahead, by a helper or by the walk while it waited (null:
   * unreadable there; the walk reads it again when it gets to it, and
   * reports why).
   */
  readonly results: Map<number, ChatFacts | null>;
  /** Offers from here on are not posted yet (-1: none). */
  offered: number;
  offeredEnd: number;
  /** Results received from the helpers. */
  received: number;
  /** False once the helpers stopped answering (or were stopped). */
  alive: boolean;
  /** Chats the walk read ahead itself. */
  stolenCount: number;
  /** The next chat the walk tries to read ahead, and the newest when this downward run started. */
  stealAt: number;
  stealTop: number;
}

export function startHelper(paths: readonly string[], toolCalls: boolean): Helper | null {
  if (HELPERS === 0) return null;
  const helpers = spawnHelpers(toolCalls);
  if (helpers === null) return null;
  const pool: Pool = {
    ...helpers,
    paths,
    // (the report keeps no evidence object: no need to detach strings from the file text)
    read: (path) => readChatFacts(path, { detach: false, toolCalls }),
    results: new Map(),
    offered: -1,
    offeredEnd: -1,
    received: 0,
    alive: true,
    stolenCount: 0,
    stealAt: -1,
    stealTop: -1,
  };
  return {
    offer(seq) {
      // Offers come in sequence order: a batch is a range of sequence numbers.
      if (pool.offered === -1) pool.offered = seq;
      pool.offeredEnd = seq + 1;
    },
    flush() {
      if (pool.offered === -1) return;
      // Every helper sees every offer; the claims decide who reads what.
      const batch = [pool.offered, paths.slice(pool.offered, pool.offeredEnd)];
      if (pool.alive) { for (const port of pool.ports) port.postMessage(batch); }
      pool.offered = -1;
    },
    take: (seq) => takeFacts(pool, seq),
    readAhead() {
      drainResults(pool);
      return pool.results.size;
    },
    stop() {
      Atomics.store(pool.walkAt, 1, 1);
      Atomics.notify(pool.walkAt, 0);
      pool.alive = false;
      for (const port of pool.ports) port.close();
      for (const worker of pool.workers) void worker.terminate();
    },
  };
}

/** Takes in what the helpers have posted. */
function drainResults(pool: Pool): void {
  for (const port of pool.ports) {
    for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
      for (const [seq, json] of m.message as [number, string | null][]) {
        const facts = json === null ? null : withText(factsFromText(pool.paths[seq]!, json), json);
        pool.results.set(seq, facts);
        pool.received++;
      }
    }
  }
}

/** Claims queued chat `seq` for the walk; what it was before (free: now the walk's). */
function claimForWalk(pool: Pool, seq: number): number {
  return Atomics.compareExchange(pool.claims, seq, CLAIM.free, CLAIM.walk);
}

/**
 * The facts of queued chat `seq`: read here if no helper claimed it, else
 * the helper's answer — reading later chats ahead while it waits, and
 * reading everything here once the helpers stop answering.
 */
function takeFacts(pool: Pool, seq: number): ChatFacts {
  const { walkAt, answered, results } = pool;
  if (seq > walkAt[0]!) {
    Atomics.store(walkAt, 0, seq);
    // (a waiting helper wakes by its timeout otherwise; waking it every few chats is enough)
    if (seq % NOTIFY_EVERY === 0) Atomics.notify(walkAt, 0);
  }
  if (!pool.alive || claimForWalk(pool, seq) === CLAIM.free) return pool.read(pool.paths[seq]!);
  let since = Date.now();
  let seen = pool.received;
  for (;;) {
    const posted = Atomics.load(answered, 0);
    drainResults(pool);
    if (results.has(seq)) {
      const facts = results.get(seq)!;
      results.delete(seq);
      return facts ?? pool.read(pool.paths[seq]!); // null: unreadable ahead; read it here
    }
    if (pool.received !== seen) {
      seen = pool.received;
      since = Date.now();
    } else if (Date.now() - since > STALL_MS) {
      pool.alive = false; // the helper stopped answering: read everything here from now on
      return pool.read(pool.paths[seq]!);
    }
    if (stealOne(pool, seq)) continue; // rather than wait, read a later chat
    // Nothing left to read ahead: wait for the helper's next answer (or a
    // moment, if one is on its way).
    Atomics.wait(answered, 0, posted, posted > pool.received ? 1 : 50);
  }
}

/**
 * Reads one chat ahead of the helpers, newer than `need` (the newest queued
 * chats within {@link READ_AHEAD}, downward); false when there is none left.
 */
function stealOne(pool: Pool, need: number): boolean {
  for (;;) {
    if (pool.stealAt <= need) {
      const top = Math.min(pool.paths.length - 1, need + READ_AHEAD);
      if (top <= pool.stealTop) return false; // nothing new since the last run
      pool.stealTop = pool.stealAt = top;
      continue;
    }
    const s = pool.stealAt--;
    if (claimForWalk(pool, s) !== CLAIM.free) {
      pool.stealAt = need; // a helper got here: it claims in order, so everything below is taken
      continue;
    }
    let facts: ChatFacts | null = null;
    try {
      facts = pool.read(pool.paths[s]!);
    } catch { /* read again, and reported, when the walk gets there */ }
    pool.results.set(s, facts); // claimed by the walk: takeFacts finds it among the results
    if (++pool.stolenCount % STOLEN_PER_GC === 0) collectYoungGarbage();
    return true;
  }
}

/** The walk wakes a helper waiting for it to catch up every this many chats. */
const NOTIFY_EVERY = 32;

/** Chats the walk reads ahead itself between two young-generation collections. */
const STOLEN_PER_GC = 100;
