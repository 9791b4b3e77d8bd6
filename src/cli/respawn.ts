/**
 * `llm prov` in the compiled binary runs in a child of itself started with
 * JavaScriptCore's top JIT tier (FTL) and its concurrent garbage collector
 * turned off.
 *
 * Why: a big walk is a one-second burst of work on every core. JSC compiles
 * its hottest functions a fourth time, with FTL, on background threads — in
 * the parent and in the helper thread, for ~0.4 s of CPU on the 200 MB bench
 * store — and in a run that short the faster code never pays that back: on
 * two cores the walk took 0.95 s with FTL and 0.86 s without (10–13 % less,
 * and less memory), measured with `bench/prov_measure.ts`. The concurrent
 * collector's threads compete for the same cores; collecting on the walk's
 * own threads instead peaks ~25 MB lower and is a little faster. JSC reads its
 * options from `BUN_JSC_*` variables once, when the process starts, so the
 * only way to set one for the binary is to start it again with the variable
 * set (as `flagged-respawn` does for Node flags). It costs one process start
 * (~10 ms) and changes nothing else: same arguments, standard streams, exit
 * status and signals. The child is also told a small RAM size
 * ({@link PROV_RAM_BYTES}), so that it collects its garbage in time.
 *
 * Only `llm prov` and the built-in ChatAnalyst's tasks, only inside the binary, never with an
 * argument naming an open file the child would not inherit (`<(…)`), and never when
 * `BUN_JSC_useFTLJIT` is already set (`BUN_JSC_useFTLJIT=1` keeps FTL and
 * the one process); an option the user set keeps the user's value. If the
 * child cannot be started the command runs in this process.
 *
 * @module
 */
import { inCompiledBinary } from "../util/binary.ts";
import { ignoredSignalsEnv, keepIgnored, listenableSignals } from "../util/ignored_signals.ts";

/** The JavaScriptCore option whose variable marks the child (and the user's own choice). */
export const PROV_JIT_ENV = "BUN_JSC_useFTLJIT";

/**
 * The RAM size JavaScriptCore is told the machine has (192 MiB), whatever it
 * has. JSC sizes its heap's growth between collections from the RAM size
 * (on a machine with 24 GB a heap may double before the next collection) and
 * a walk's garbage is mostly text it hardly counts: told 192 MiB, it collects
 * when the heap has grown by a quarter, and `llm prov` on the 626 MB bench
 * store peaks at ~240 MB instead of ~325 MB for ~10 % more CPU (issue 16;
 * 128–256 MiB all give 235–280 MB). It sizes collections, it limits nothing:
 * a bigger live heap still fits (the 2 GB store's walk holds ~300 MB).
 */
export const PROV_RAM_BYTES = 192 * 1048576;

/** The JavaScriptCore options the child gets, as environment variables. */
export const PROV_JSC_OPTIONS: Readonly<Record<string, string>> = {
  [PROV_JIT_ENV]: "0",
  BUN_JSC_useConcurrentGC: "0",
  BUN_JSC_forceRAMSize: String(PROV_RAM_BYTES),
  // Blocks a collection emptied go back to the allocator at once, not when
  // the mutator next allocates from them: the 2 GB bench store's walk peaks
  // 10-15 MB lower (the 626 MB store's 15-25 MB) for a few % more CPU (issue 16)
  BUN_JSC_sweepSynchronously: "1",
};

/**
 * Global options that take a value (`--log 6`): the program's own list
 * (`main.ts`), repeated here so the decision is made before the CLI loads; a
 * test keeps the two equal. (Were they to drift, `llm prov` would only miss
 * the tuned child, never misbehave.)
 */
export const VALUED_GLOBALS: ReadonlySet<string> = new Set(["--log"]);

/**
 * Whether arguments name a provenance walk: the first words that are not
 * global options (or their values) are `llm prov`, or `workflow task
 * ChatAnalyst` (the built-in workflow whose tasks each walk once).
 *
 * @param args command-line arguments (without the executable)
 * @returns true for `llm prov …`
 */
export function isProvCommand(args: readonly string[]): boolean {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 3; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (VALUED_GLOBALS.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  return (words[0] === "llm" && words[1] === "prov") ||
    // a ChatAnalyst task is one provenance walk too (issue 17's bench)
    (words[0] === "workflow" && words[1] === "task" && words[2] === "ChatAnalyst");
}

/**
 * Whether to run the command in a tuned child (see the module doc).
 *
 * @param args command-line arguments
 * @param env the environment
 * @param moduleUrl the entry module's `import.meta.url` (tells the binary from source)
 * @returns true to respawn
 */
export function shouldRespawn(
  args: readonly string[],
  env: Record<string, string | undefined>,
  moduleUrl: string,
): boolean {
  return env[PROV_JIT_ENV] === undefined && inCompiledBinary(moduleUrl) && isProvCommand(args) &&
    !namesOpenFd(args);
}

/**
 * Whether an argument names one of this process's open files beyond the
 * standard three — `llm prov <(…)` is `llm prov /dev/fd/63` — which a child
 * started again would not have (it gets stdin, stdout and stderr only): the
 * command then runs in this process.
 *
 * @param args command-line arguments
 * @returns true when one is `/dev/fd/N` or `/proc/self/fd/N` with N ≥ 3 (or `--opt=` one)
 */
export function namesOpenFd(args: readonly string[]): boolean {
  return args.some((a) => /(?:^|=)\/(?:dev|proc\/self)\/fd\/(?:[3-9]|\d\d)/.test(a));
}

/**
 * After a child a signal ended: erases the line the cursor is on, where its
 * progress line was (R141-7). A Ctrl-C comes while the walk computes
 * synchronously, where the child runs no handler of its own: it dies as the
 * signal's default says, its line (and the terminal's `^C`) left on the
 * screen. Drawn where the child draws one (`status_line.ts`
 * `canRedrawStderr`: stderr a TTY, `TERM` not `dumb`); a failed write (the
 * terminal gone: SIGHUP) is let go.
 */
async function eraseProgressLine(): Promise<void> {
  if (!process.stderr.isTTY || process.env.TERM === "dumb") return;
  const { writeSync } = await import("node:fs");
  try {
    writeSync(2, "\r\x1b[K");
  } catch { /* the terminal is gone */ }
}

/** Signals passed on to the child (it then ends as it would have alone). */
const FORWARDED: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

/**
 * Runs the binary again on the same arguments with {@link PROV_JSC_OPTIONS}
 * added to the environment (the user's own values kept), standard streams
 * shared, and waits for it. Signals sent to this process (`kill PID`, not
 * only the terminal's Ctrl-C, which reaches both) are passed on, so the
 * child never outlives it.
 *
 * @param args command-line arguments
 * @returns the child's exit status (a child killed by a signal re-raises it
 *   here), or null when it could not be started
 */
export async function respawn(args: readonly string[]): Promise<number | null> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    // the signals this process started with ignored (nohup): Bun's spawn resets them (R107-2)
    env: { ...PROV_JSC_OPTIONS, ...process.env, ...ignoredSignalsEnv() },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  // a signal this process started with ignored (nohup) is not taken: it stays ignored (R107-2)
  const taken = listenableSignals(FORWARDED);
  for (const signal of taken) process.on(signal, forward);
  keepIgnored();
  const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | null>(
    (done) => {
      child.once("error", () => done(null)); // not started (or not waitable)
      child.once("exit", (code, signal) => done({ code, signal }));
    },
  );
  for (const signal of taken) process.off(signal, forward);
  if (end === null) return null;
  if (end.signal !== null) {
    await eraseProgressLine();
    process.kill(process.pid, end.signal); // end the same way (handlers are gone)
    const { constants } = await import("node:os");
    return 128 + (constants.signals[end.signal] ?? 0);
  }
  return end.code ?? 1;
}
