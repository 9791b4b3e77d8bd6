/**
 * The signals this process started with ignored: `nohup` ignores SIGHUP, a
 * non-interactive shell's background job (`cmd &`) starts with SIGINT and
 * SIGQUIT ignored (POSIX, "Asynchronous Lists"). Bun and Deno install a real
 * handler for a signal as soon as `process.on(signal)` is called, which
 * overrides the inherited ignore; Ruby (and a C program) keeps it.
 *
 * [TS-FIX] (R107-2) So the CLI installs no listener for such a signal: it
 * stays ignored, and a detached `nohup scout-ai workflow task …` outlives the
 * login session. Read once, from `/proc/self/status` (`SigIgn`), before any
 * listener of ours is installed (`handleInterrupts`, `respawn` read it
 * first); where `/proc` cannot be read, no signal counts as ignored (every
 * listener installed, as before). Deno resets SIGHUP, SIGINT and SIGTERM
 * together when a listener for any one of them is installed: after
 * installing, {@link keepIgnored} gives each one so lost an inert listener,
 * which ignores it still (Bun keeps the kernel's ignore; nothing to do).
 * Bun's `spawn` resets every disposition to the default in the child: the
 * `llm prov` respawn (`cli/respawn.ts`) names the ignored signals to its child
 * in {@link IGNORED_SIGNALS_ENV}, and the child ignores them the same way.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { constants } from "node:os";

let ignored: ReadonlySet<string> | null = null;

/** The signals the CLI listens to somewhere: those an ignore matters for. */
const HANDLED: ReadonlySet<string> = new Set(["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM"]);

/**
 * The variable a respawned CLI process learns its parent's started-ignored
 * signals from (comma-separated names; read once, then removed from the
 * environment).
 */
export const IGNORED_SIGNALS_ENV = "SCOUT_AI_IGNORED_SIGNALS";

/** The signals named in a `SigIgn:` hex mask (bit n-1 for signal n), of those `os` knows. */
function fromMask(hex: string): Set<string> {
  const mask = BigInt(`0x${hex}`);
  const names = new Set<string>();
  for (const [name, n] of Object.entries(constants.signals)) {
    if (n > 0 && n <= 64 && (mask >> BigInt(n - 1)) & 1n) names.add(name);
  }
  return names;
}

function readIgnored(): Set<string> {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const hex = /^SigIgn:\s*([0-9a-fA-F]+)\s*$/m.exec(status)?.[1];
    return hex === undefined ? new Set() : fromMask(hex);
  } catch {
    return new Set(); // no /proc (macOS, a sandbox): as before, nothing counts as ignored
  }
}

/**
 * Reads, once, which signals the process started with ignored; later calls
 * return that first reading (a listener installed since changes the mask).
 * Call it before installing any signal listener.
 *
 * @returns the signal names (`"SIGHUP"`, …)
 */
export function startupIgnoredSignals(): ReadonlySet<string> {
  if (ignored !== null) return ignored;
  const found = readIgnored();
  const passed = process.env[IGNORED_SIGNALS_ENV];
  if (passed !== undefined) {
    delete process.env[IGNORED_SIGNALS_ENV]; // this process's: not its own children's
    for (const name of passed.split(",")) if (name in constants.signals) found.add(name);
  }
  ignored = found;
  return ignored;
}

/**
 * The environment that tells a child process of the CLI which signals this
 * one started with ignored, for a runtime whose `spawn` resets them (Bun).
 *
 * @returns `{ SCOUT_AI_IGNORED_SIGNALS: "SIGHUP,…" }`, or `{}` when none
 */
export function ignoredSignalsEnv(): Record<string, string> {
  const names = [...startupIgnoredSignals()].filter((s) => HANDLED.has(s));
  return names.length > 0 ? { [IGNORED_SIGNALS_ENV]: names.join(",") } : {};
}

/**
 * Of `signals`, those a listener may be installed for: not ignored when the
 * process started (see the module doc).
 *
 * @param signals signal names
 * @returns those not inherited ignored, in order
 */
export function listenableSignals<T extends string>(signals: readonly T[]): T[] {
  const skip = startupIgnoredSignals();
  return signals.filter((s) => !skip.has(s));
}

/** The started-ignored signals given an inert listener. */
const inert = new Set<string>();
const ignore = () => {};

/**
 * After installing a signal listener (and at the start, for a respawned
 * child): each signal the CLI handles that the process started with ignored,
 * that the kernel no longer ignores (Deno, Bun's children: see the module
 * doc) and that has no listener gets an inert one (for the process's life),
 * so it is still ignored.
 */
export function keepIgnored(): void {
  const started = startupIgnoredSignals();
  if (started.size === 0) return;
  const now = readIgnored();
  for (const signal of started) {
    if (now.has(signal) || inert.has(signal) || !HANDLED.has(signal)) continue;
    if (process.listenerCount(signal) > 0) continue;
    inert.add(signal);
    process.on(signal as NodeJS.Signals, ignore);
  }
}
