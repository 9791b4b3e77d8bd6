/**
 * Entry point of the helper thread that reads chats ahead of the provenance
 * walk (see `facts_pool.ts`, the walk's side). The compiled binary embeds it
 * as a second entrypoint of `deno task build`.
 *
 * @module
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { collectAllGarbage } from "../util/gc.ts";
import { factsToText, readChatFacts } from "./chat_facts.ts";
import { CLAIM, READ_AHEAD } from "./facts_helpers.ts";

/** How long a helper ahead of the walk sleeps before it looks again (ms). */
const AHEAD_WAIT_MS = 20;

/**
 * Chats a helper thread reads between two collections of its garbage (each
 * ~1–3 ms: every 8 offer batches was ~0.4 s of CPU on the 200 MB store).
 */
const HELPER_GC_EVERY = 200;

/** The helper posts its results in messages of at most this many chats. */
const RESULT_BATCH = 8;

/**
 * The helper's loop: for each offered chat it claims, it
 * extracts the facts and posts `[seq, factsToText(facts)]` (or `[seq, null]`
 * when it could not read it: the walk reads it again and reports why), a
 * few chats per message. Facts travel as JSON text: a structured clone of
 * them costs twice as much on the two threads together, and facts are plain
 * JSON data (the one difference, `-0` read back as `0`, prints the same
 * everywhere).
 *
 * @param data the worker data: port, claims, answered counter
 */
function runHelper(
  data: {
    port: MessagePort;
    claims: Uint8Array;
    answered: Int32Array;
    walkAt: Int32Array;
    toolCalls?: boolean;
  },
): void {
  const { port, claims, answered, walkAt } = data;
  const toolCalls = data.toolCalls === true;
  let read = 0; // chats this thread read
  port.on("message", (msg: [number, string[]]) => {
    const [from, offered] = msg;
    let out: [number, string | null][] = [];
    const post = () => {
      port.postMessage(out);
      Atomics.add(answered, 0, out.length);
      Atomics.notify(answered, 0);
      out = [];
    };
    /** Waits until `seq` is within {@link READ_AHEAD} of the walk; false once it is done. */
    const near = (seq: number): boolean => {
      for (;;) {
        if (Atomics.load(walkAt, 1) !== 0) return false;
        const at = Atomics.load(walkAt, 0);
        if (seq <= at + READ_AHEAD) return true;
        if (out.length > 0) post(); // what the walk may need next must not wait here with us
        Atomics.wait(walkAt, 0, at, AHEAD_WAIT_MS);
      }
    };
    offered.forEach((path, k) => {
      const seq = from + k;
      if (!near(seq)) return;
      if (Atomics.compareExchange(claims, seq, CLAIM.free, CLAIM.helper) !== CLAIM.free) return;
      let json: string | null = null;
      try {
        // (JSON text carries copies: no need to detach strings from the file's text)
        json = factsToText(readChatFacts(path, { detach: false, toolCalls }));
      } catch { /* the walk reads it again and reports the error */ }
      out.push([seq, json]);
      if (out.length === RESULT_BATCH) post();
      // This thread keeps nothing: a full collection of its garbage (file
      // text, parsed chats) is quick, and keeps its resident memory small.
      if (++read % HELPER_GC_EVERY === 0) collectAllGarbage();
    });
    if (out.length > 0) post();
  });
}

runHelper(
  workerData as {
    port: MessagePort;
    claims: Uint8Array;
    answered: Int32Array;
    walkAt: Int32Array;
    toolCalls?: boolean;
  },
);
