/**
 * Test helpers for running the CLI: in-process (`runMain`, via `main` and a
 * buffer Io), as a real subprocess from source (`runScout`; `spawnScout` for
 * one the test acts on while it runs), or as the built
 * binary (`runBinary`, after `buildBinary`); any other command (`runCommand`).
 */
import { fileURLToPath as fromFileUrl } from "node:url";
import { dirname, join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { bufferIo } from "./buffer_io.ts";
import { keepToolCaches } from "./suite_home.ts";
import { buildBinaryAt, SHARED_BINARY_VAR } from "./build_binary.ts";

// children given a temporary HOME use the real Deno and Bun caches, also outside the suite's wrapper
keepToolCaches();

/** Repository root. */
export const ROOT: string = dirname(dirname(dirname(fromFileUrl(import.meta.url))));
/** The pinned deno (tests run under it). */
export const DENO: string = Deno.execPath();
/** A binary the suite's wrapper built for every test file, if any (`build_binary.ts`). */
const SHARED_BINARY = Deno.env.get(SHARED_BINARY_VAR) || undefined;
/**
 * The binary tests run: the suite's, else one this test process builds (test
 * files run in parallel, each in its own process).
 */
export const BINARY: string = SHARED_BINARY ??
  join(Deno.makeTempDirSync({ prefix: "scout-bin-" }), "scout-ai");
// one built here is removed when the test process ends: each left a directory, and a 113 MB
// binary where one was built, in the temp dir (3,900 of them, 41 GB, after a day of test runs)
if (SHARED_BINARY === undefined) {
  globalThis.addEventListener(
    "unload",
    () => Deno.removeSync(dirname(BINARY), { recursive: true }),
  );
}

/** Result of a CLI run. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `main(args)` in-process with a buffer Io. */
export async function runMain(
  args: string[],
  opts: {
    stdin?: string;
    env?: Record<string, string>;
    cwd?: string;
    tty?: boolean;
    /** The terminal's width (with `tty`). */
    columns?: number;
  } = {},
): Promise<CliResult> {
  const io = bufferIo(opts);
  const code = await main(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/**
 * Runs `cmd` with `args` in a real subprocess (in `cwd`, default the
 * repository root; `NO_COLOR` set; `stdin` written, else none) and collects
 * its exit code and output.
 */
export async function runCommand(
  cmd: string,
  args: string[],
  opts: { stdin?: string | Uint8Array; env?: Record<string, string>; cwd?: string },
): Promise<CliResult> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: opts.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...opts.env },
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(
      typeof opts.stdin === "string" ? new TextEncoder().encode(opts.stdin) : opts.stdin,
    );
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Deno's arguments that run `cli.ts` from source, before the CLI's own: those
 * of `deno task scout` as deno.json has them (so a test runs the task's
 * permissions), with the config named and `cli.ts` absolute (tests run from
 * other directories; the task runs from the root).
 */
export const SCOUT_SOURCE_ARGS: readonly string[] = scoutTaskArgs();

function scoutTaskArgs(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const [deno, ...args] = (config.tasks.scout as string).split(/\s+/);
  if (deno !== "deno" || args.at(-1) !== "cli.ts") {
    throw new Error(`unexpected scout task: ${config.tasks.scout}`);
  }
  return [...args.slice(0, -1), `--config=${join(ROOT, "deno.json")}`, join(ROOT, "cli.ts")];
}

/** Runs `cli.ts` from source in a real subprocess (like `deno task scout`). */
export function runScout(
  args: string[],
  opts: { stdin?: string | Uint8Array; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  return runCommand(DENO, [...SCOUT_SOURCE_ARGS, ...args], opts);
}

/** What {@link spawnScout} passes on to `Deno.Command`. */
export type SpawnOptions = Pick<
  Deno.CommandOptions,
  "cwd" | "env" | "stdin" | "stdout" | "stderr" | "signal"
>;

/**
 * Starts `cli.ts` from source as a child a test watches, signals or talks to
 * while it runs (like `deno task scout`): in `cwd`, default the repository
 * root, and with `NO_COLOR` set, as {@link runCommand} does; no stdin and
 * stdout and stderr piped unless `opts` says otherwise.
 */
export function spawnScout(args: string[], opts: SpawnOptions = {}): Deno.ChildProcess {
  return new Deno.Command(DENO, {
    args: [...SCOUT_SOURCE_ARGS, ...args],
    cwd: opts.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...opts.env },
    stdin: opts.stdin ?? "null",
    stdout: opts.stdout ?? "piped",
    stderr: opts.stderr ?? "piped",
    signal: opts.signal,
  }).spawn();
}

let built: Promise<void> | null = null;

/**
 * Builds the binary once per test process with exactly the command of
 * `deno task build` (read from deno.json), writing to {@link BINARY} instead
 * of `dist/scout-ai` so parallel test files do not race on one output file;
 * under the suite's wrapper, the binary it built is there already.
 */
export function buildBinary(): Promise<void> {
  built ??= SHARED_BINARY !== undefined ? Promise.resolve() : buildBinaryAt(ROOT, BINARY);
  return built;
}

/** Runs the built binary (call {@link buildBinary} first). */
export function runBinary(
  args: string[],
  opts: { stdin?: string | Uint8Array; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  return runCommand(BINARY, args, opts);
}

/**
 * The env that gives what a test runs a Scout home of its own, `<dir>/home`:
 * without `SCOUT_HOME`, jobs' persist locks, the inference cache and the rest
 * go to the user's `~/.scout`, shared with the Ruby Scout (R77-6).
 */
export function homeIn(dir: string): { SCOUT_HOME: string } {
  return { SCOUT_HOME: join(dir, "home") };
}

/** A fresh temporary directory, removed by the returned disposer. */
export async function tempDir(prefix = "scout-test-"): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}
