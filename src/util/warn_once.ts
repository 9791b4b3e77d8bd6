/**
 * Warnings about what a file says, told once per process: a config entry no
 * lookup reads, a chat's `config:` line without a scope, a knowledge-base
 * registry's unquoted YAML 1.1 boolean. The layers that find them (config,
 * chat, kb) have no Io; the CLI points {@link setWarningSink} at its own
 * `warn` (so `--log 6` silences them), and a library caller gets stderr.
 *
 * @module
 */

/** Where a warning goes. */
export type WarningSink = (message: string) => void;

let sink: WarningSink | undefined;
const told = new Set<string>();

/**
 * Sets where {@link warnOnce} writes (undefined: back to stderr).
 *
 * @param to the sink, e.g. the CLI's `(m) => warn(io, m)`
 */
export function setWarningSink(to: WarningSink | undefined): void {
  sink = to;
}

/**
 * Writes `message` unless a warning with the same `id` was written before in
 * this process.
 *
 * @param id what the warning is about (a file:line and a kind)
 * @param message the warning, without the `scout-ai: warning:` prefix
 *
 * @example
 * ```ts
 * import { warnOnce } from "./warn_once.ts";
 * warnOnce("etc/config:3 unscoped", "…"); // written
 * warnOnce("etc/config:3 unscoped", "…"); // not again
 * ```
 */
export function warnOnce(id: string, message: string): void {
  if (told.has(id)) return;
  told.add(id);
  if (sink) sink(message);
  else console.warn(`scout-ai: warning: ${message}`);
}
