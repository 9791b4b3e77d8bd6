/**
 * Where warnings go, and telling one once. The config, chat and kb layers
 * find things worth a warning deep in calls that carry no `warn` (a config
 * entry no lookup reads, a chat's `config:` line without a scope, a
 * knowledge-base registry's unquoted YAML 1.1 boolean); they call
 * {@link warnOnce}, which writes to, first found: the sink given to the call,
 * the sink of the enclosing {@link withWarningSink} (an `ask`, a `compile`, a
 * `loadAgent` given `warn` run under it), the process-wide sink
 * ({@link setWarningSink}; the CLI points it at its own `warn`), else
 * {@link stderrWarning} — the one default of library calls given no `warn`.
 * A warning is told once per sink: a second caller with its own sink still
 * hears it.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Where a warning goes (the message, without the `scout-ai: warning:` prefix). */
export type WarningSink = (message: string) => void;

let processSink: WarningSink | undefined;
const scoped = new AsyncLocalStorage<WarningSink>();
const told = new WeakMap<WarningSink, Set<string>>();

/**
 * The default sink of library calls given no `warn`: stderr, prefixed
 * `scout-ai: warning: `. One function, so what it was told once it is not
 * told again in this process.
 *
 * @param message the warning
 */
export function stderrWarning(message: string): void {
  console.warn(`scout-ai: warning: ${message}`);
}

/**
 * Sets the process-wide sink, used where no caller gave one (undefined: back
 * to {@link stderrWarning}). The CLI sets it to its own `warn`.
 *
 * @param to the sink
 */
export function setWarningSink(to: WarningSink | undefined): void {
  processSink = to;
}

/**
 * Runs `fn` with `sink` as the sink of every warning told inside it (its
 * awaits included) that is given no sink of its own; undefined runs `fn` as
 * it is.
 *
 * @param sink the caller's sink
 * @param fn what to run
 * @returns what `fn` returns
 *
 * @example
 * ```ts
 * import { currentWarningSink, withWarningSink } from "./warn_once.ts";
 * const got: string[] = [];
 * await withWarningSink((m) => got.push(m), async () => {
 *   await Promise.resolve();
 *   currentWarningSink()("etc/config:3 has no scope"); // to got, not stderr
 * });
 * ```
 */
export function withWarningSink<T>(sink: WarningSink | undefined, fn: () => T): T {
  return sink === undefined ? fn() : scoped.run(sink, fn);
}

/**
 * The sink a warning told here would go to: the enclosing
 * {@link withWarningSink}'s, else the process-wide one, else
 * {@link stderrWarning}.
 *
 * @returns the sink
 */
export function currentWarningSink(): WarningSink {
  return scoped.getStore() ?? processSink ?? stderrWarning;
}

/**
 * Writes `message` to `sink` (default {@link currentWarningSink}) unless a
 * warning with the same `id` was written to that sink before.
 *
 * @param id what the warning is about (a file:line and a kind)
 * @param message the warning, without the `scout-ai: warning:` prefix
 * @param sink where to write (default: {@link currentWarningSink})
 *
 * @example
 * ```ts
 * import { warnOnce } from "./warn_once.ts";
 * const got: string[] = [];
 * const sink = (m: string) => got.push(m);
 * warnOnce("etc/config:3 unscoped", "…", sink); // written
 * warnOnce("etc/config:3 unscoped", "…", sink); // not again
 * ```
 */
export function warnOnce(id: string, message: string, sink?: WarningSink): void {
  const to = sink ?? currentWarningSink();
  let ids = told.get(to);
  if (ids === undefined) told.set(to, ids = new Set());
  if (ids.has(id)) return;
  ids.add(id);
  to(message);
}
