/**
 * Which inferences a piece of work made: how many rounds queried the
 * provider (`live`) and how many were replayed from the inference cache
 * (`replayed`), nested asks included (a specialist's, a job's body run in
 * this process). What `cached` of an answer means — no provider request was
 * made for it — on both routes of `llm ask`/`agent ask --json` (R143-3).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The inferences counted by {@link tallyInferences}. */
export interface InferenceTally {
  /** Rounds that queried the provider. */
  live: number;
  /** Rounds (or whole asks of the earlier cache format) replayed from the cache. */
  replayed: number;
}

const tallies = new AsyncLocalStorage<readonly InferenceTally[]>();

/**
 * Runs `fn`, counting into `tally` every inference made inside it (a tally
 * around this one counts them too).
 *
 * @param tally the counts, updated as `fn` runs
 * @param fn the work
 * @returns what `fn` returns
 * @example
 * ```ts ignore
 * const tally = { live: 0, replayed: 0 };
 * await tallyInferences(tally, () => ask(messages, options));
 * const cached = tally.replayed > 0 && tally.live === 0;
 * ```
 */
export function tallyInferences<T>(tally: InferenceTally, fn: () => Promise<T>): Promise<T> {
  return tallies.run([...tallies.getStore() ?? [], tally], fn);
}

/**
 * Counts one inference in every tally around the caller.
 *
 * @param how `live` (a provider request) or `replayed` (from the cache)
 */
export function noteInference(how: keyof InferenceTally): void {
  for (const t of tallies.getStore() ?? []) t[how]++;
}

/**
 * Whether an answer is cached: it replayed something and made no provider request.
 *
 * @param tally the answer's counts
 * @returns true when every inference was replayed
 */
export function allReplayed(tally: InferenceTally): boolean {
  return tally.replayed > 0 && tally.live === 0;
}
