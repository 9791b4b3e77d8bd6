/**
 * What a stream was given but has not written out yet. Bun writes to a pipe
 * asynchronously: `write()` returns at once, the bytes wait for the reader,
 * and `process.exit()` drops them (a slow reader got the first 64 KiB, R102-1).
 * A write's callback comes once its bytes are out, in Bun as in Deno (which
 * writes synchronously), and `writableLength` stays 0 in Bun: so the writes
 * whose callback has not come are counted.
 *
 * @module
 */
import type { Writable } from "node:stream";

/** A stream's writes not yet written out. */
export interface PendingWrites {
  /**
   * Resolves once every write so far is written out, or once the stream
   * failed or closed (its reader gone, a full disk: nothing more will go
   * out). No time limit: a slow reader, however slow, gets everything.
   */
  settled(): Promise<void>;
}

type WriteCallback = (error?: Error | null) => void;

/**
 * Counts the writes to `stream` (through its `write`, whoever calls it) until
 * their callback. Its `error` and `close` events end the wait; handling the
 * error stays its owner's (the listener added only notes it).
 *
 * @param stream the stream (`process.stdout`)
 * @returns what is pending on it
 */
export function trackWrites(stream: Writable): PendingWrites {
  let pending = 0;
  let ended = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    if (pending === 0 || ended) { for (const w of waiters.splice(0)) w(); }
  };
  const end = () => {
    ended = true;
    wake();
  };
  stream.on("error", end);
  stream.on("close", end);
  const write = stream.write;
  stream.write = function (this: Writable, chunk: unknown, encoding?: unknown, cb?: unknown) {
    const callback = (typeof encoding === "function" ? encoding : cb) as WriteCallback | undefined;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      pending--;
      wake();
    };
    pending++;
    try {
      const args = typeof encoding === "string" ? [chunk, encoding] : [chunk];
      return (write as (...a: unknown[]) => boolean).call(this, ...args, (e?: Error | null) => {
        done();
        callback?.(e);
      });
    } catch (e) {
      done(); // Deno throws at once on a full disk
      throw e;
    }
  } as Writable["write"];
  return {
    settled: () => {
      if (pending === 0 || ended) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
