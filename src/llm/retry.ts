/**
 * Retries of a provider query (`inference.md` §7, [TS-FIX]): only the query,
 * never tools; on 408/409/429/5xx, network errors and timeouts; exponential
 * backoff from 0.5 s doubling with jitter, capped at 30 s; `Retry-After`
 * honoured (a wait longer than `max_retry_after`, default 60 s, is not
 * waited for: the error is raised at once, saying so). The SDK's own retries
 * are off, so this is the one layer.
 *
 * @module
 */
import { isRetryable } from "./errors.ts";

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** Base delay in ms (default 500). */
  baseMs?: number;
  /** Delay cap in ms (default 30 000). */
  capMs?: number;
  /**
   * Longest `Retry-After` that is waited for, in ms (default 60 000; the
   * `max_retry_after` setting, in seconds).
   */
  maxRetryAfterMs?: number;
  /** Sleeps (tests inject a fake clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1) for jitter. */
  random?: () => number;
  /** Told before each retry. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /** Aborts waiting. */
  signal?: AbortSignal;
}

/**
 * Sleeps `ms`, rejecting when `signal` aborts.
 *
 * @param ms milliseconds
 * @param signal abort signal
 * @returns a promise resolved after the delay
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The delay before retry number `attempt` (1-based).
 *
 * @param attempt retry number
 * @param error the failure (its `retryAfterMs` wins when present)
 * @param opts base, cap, random
 * @returns milliseconds, or null when the server asks for a longer wait than allowed
 */
export function retryDelay(
  attempt: number,
  error: unknown,
  opts: RetryOptions = {},
): number | null {
  const ra = (error as { retryAfterMs?: unknown })?.retryAfterMs;
  if (typeof ra === "number" && Number.isFinite(ra)) {
    return ra > (opts.maxRetryAfterMs ?? 60_000) ? null : Math.max(0, ra);
  }
  const base = Math.min(opts.capMs ?? 30_000, (opts.baseMs ?? 500) * 2 ** (attempt - 1));
  const jitter = 0.8 + 0.4 * (opts.random ?? Math.random)();
  return Math.round(Math.min(opts.capMs ?? 30_000, base * jitter));
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or the
 * retries are used up (then the last error is thrown, with `attempts` set).
 *
 * @param fn the query (given the 0-based attempt number)
 * @param opts retry policy
 * @returns what `fn` returned
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  opts: RetryOptions = {},
): Promise<T> {
  const max = opts.maxRetries ?? 3;
  for (let attempt = 0;; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!isRetryable(e) || attempt >= max || opts.signal?.aborted) {
        if (typeof e === "object" && e !== null) {
          (e as { attempts?: number }).attempts = attempt + 1;
        }
        throw e;
      }
      const delay = retryDelay(attempt + 1, e, opts);
      if (delay === null) {
        const err = e as { attempts?: number; message?: unknown; retryAfterTooLong?: boolean };
        err.attempts = attempt + 1;
        err.retryAfterTooLong = true;
        if (typeof err.message === "string") {
          const ra = (e as { retryAfterMs: number }).retryAfterMs;
          err.message += `; retry-after ${seconds(ra)} s exceeds the ${
            seconds(opts.maxRetryAfterMs ?? 60_000)
          } s limit (max_retry_after)`;
        }
        throw e;
      }
      opts.onRetry?.({ attempt: attempt + 1, delayMs: delay, error: e });
      await (opts.sleep ?? sleep)(delay, opts.signal);
    }
  }
}

/**
 * What a warning of a retry a cached round replays ends with (the round met
 * it when it was recorded; nothing waits now). Never in a job's `.info`
 * note, which is written as the recording wrote it.
 */
export const REPLAYED = " (replayed from the cache)";

/**
 * The warning for a retry, as `llm ask` prints it and the agent layer warns
 * it for a nested ask: the error, the delay and the attempt about to start.
 *
 * @param info the retry (`attempt`: the attempts made so far)
 * @returns the warning text
 *
 * @example
 * ```ts
 * import { retryNotice } from "./retry.ts";
 * retryNotice({ attempt: 1, delayMs: 500, error: new Error("HTTP 500") });
 * // "HTTP 500; retrying in 0.5 s (attempt 2)"
 * ```
 */
export function retryNotice(info: { attempt: number; delayMs: number; error: unknown }): string {
  const why = info.error instanceof Error ? info.error.message : String(info.error);
  return `${why}; retrying in ${(info.delayMs / 1000).toFixed(1)} s (attempt ${info.attempt + 1})`;
}
