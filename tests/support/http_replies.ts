/**
 * Small helpers of the loopback servers' replies.
 *
 * @module
 */

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A JSON reply with `status` and extra `headers`. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** How a scripted streamed body is paced and where it breaks. */
export interface ChunkScript {
  /** Reset the connection instead of sending chunk `cutAfter` (0-based). */
  cutAfter?: number;
  /** Pause between chunks. */
  chunkDelayMs?: number;
  /** Send chunk `endInside` (0-based) only up to its middle, then end the body cleanly. */
  endInside?: number;
}

/** What a caller adds to {@link scriptedStream}. */
export interface ChunkHooks {
  /** Runs before chunk `i` is sent; true ends the stream there (it handled the end). */
  before?: (i: number, controller: ReadableStreamDefaultController<Uint8Array>) => Promise<boolean>;
  /** Runs as each chunk is sent. */
  sent?: () => void;
  /** Runs when the client cancels the body. */
  cancel?: () => void;
}

/**
 * A streamed body of `chunks` in order, `chunkDelayMs` apart, reset with an
 * error instead of chunk `cutAfter` (after 20 ms, so that the chunks already
 * sent reach the client first), or ended cleanly in the middle of chunk
 * `endInside`.
 *
 * @param chunks the body's chunks
 * @param script pacing and the cut
 * @param hooks stalls, first-byte marks, cancellation
 * @returns the body
 */
export function scriptedStream(
  chunks: readonly Uint8Array[],
  script: ChunkScript,
  hooks: ChunkHooks = {},
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    cancel: () => hooks.cancel?.(),
    async start(controller) {
      for (let i = 0; i < chunks.length; i++) {
        if (script.cutAfter !== undefined && i >= script.cutAfter) {
          if (i > 0) await sleep(20);
          controller.error(new Error("scripted connection reset"));
          return;
        }
        if (await hooks.before?.(i, controller)) return;
        if (i > 0 && script.chunkDelayMs) await sleep(script.chunkDelayMs);
        hooks.sent?.();
        if (i === script.endInside) {
          controller.enqueue(chunks[i]!.subarray(0, Math.floor(chunks[i]!.length / 2)));
          break;
        }
        controller.enqueue(chunks[i]!);
      }
      controller.close();
    },
  });
}
