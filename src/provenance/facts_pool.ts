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
 * sooner); its young garbage is collected every hundred chats
 * (`facts_helpers.ts`), or the text it parsed would pile up on its big heap
 * (+45 MB peak instead of +20). Nobody reads more than `READ_AHEAD` chats
 * past the one the walk needs: what is read ahead waits on the walk's heap. Helpers
 * that never start or stop answering only cost time: the walk then reads
 * everything itself. Results are the same either way (one function
 * computes them, and their JSON text carries them across exactly), so
 * output does not depend on which thread read what.
 *
 * @module
 */
import type { LoadedChat } from "./types.ts";
import type { ReceiptProblem } from "../chat/receipts.ts";
import { agentMetaEvidence } from "../chat/receipts.ts";
import { loadRawSync } from "../chat/load.ts";
import { type ChatFacts, chatFactsOf, readChatFacts } from "./chat_facts.ts";
import { CAPACITY, type Helper, startHelper } from "./facts_helpers.ts";

export { CLAIM, factsText, READ_AHEAD } from "./facts_helpers.ts";

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
  if (o.onChat !== undefined) return messagesReader(o, o.onChat);
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

/** The reader when `onChat` wants each chat's messages: everything read here, in walk order. */
function messagesReader(
  o: ChatReaderOptions,
  onChat: NonNullable<ChatReaderOptions["onChat"]>,
): ChatReader {
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
      return chatFactsOf({ path, messages, receipts, receiptProblems: problems }, {
        toolCalls: o.toolCalls === true,
      });
    },
    readAhead: () => 0,
    close() {},
  };
}
