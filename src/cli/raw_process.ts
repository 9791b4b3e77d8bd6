/**
 * The process's arguments, environment and working directory as the bytes the
 * kernel holds (Linux `/proc/self/cmdline`, `/proc/self/environ`,
 * `/proc/self/cwd`). Bun and Deno hand them to JavaScript decoded, with each
 * byte that is not UTF-8 replaced by U+FFFD (Deno throws on such a variable or
 * working directory instead): only the bytes tell a typed U+FFFD from a
 * replaced byte. Read only when a decoded value holds a U+FFFD
 * (`utf8_guard.ts`); where `/proc` is missing, every part is undefined.
 *
 * @module
 */
import { readFileSync, readlinkSync } from "node:fs";

/** The raw bytes of the process's inputs; undefined where they cannot be read. */
export interface RawProcess {
  /** `/proc/self/cmdline`: each argument followed by a NUL byte. */
  cmdline?: Uint8Array;
  /** `/proc/self/environ`: each `NAME=value` followed by a NUL byte, as the process started. */
  environ?: Uint8Array;
  /** The working directory's path (the link `/proc/self/cwd`). */
  cwd?: Uint8Array;
}

/**
 * Reads the parts of {@link RawProcess} asked for.
 *
 * @param want which parts to read
 * @returns the bytes of those that could be read
 */
export function readRawProcess(want: { args: boolean; env: boolean; cwd: boolean }): RawProcess {
  const raw: RawProcess = {};
  if (want.args) raw.cmdline = attempt(() => readFileSync("/proc/self/cmdline"));
  if (want.env) raw.environ = attempt(() => readFileSync("/proc/self/environ"));
  // Bun gives the link's bytes; Deno refuses a target that is not UTF-8 (undefined: the
  // caller names the directory from Deno's own error)
  if (want.cwd) raw.cwd = attempt(() => readlinkSync("/proc/self/cwd", { encoding: "buffer" }));
  return raw;
}

function attempt(read: () => Uint8Array): Uint8Array | undefined {
  try {
    return new Uint8Array(read());
  } catch {
    return undefined;
  }
}

/**
 * The NUL-terminated entries of `/proc/self/cmdline` or `/proc/self/environ`.
 *
 * @param bytes the file's bytes
 * @returns each entry's bytes
 */
export function nulEntries(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0) continue;
    out.push(bytes.subarray(from, i));
    from = i + 1;
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

/**
 * The bytes of the user's arguments: the last `count` entries of the command
 * line (before them come the runtime and the script, however many there are:
 * `deno run -q -A cli.ts`, or the binary alone).
 *
 * @param cmdline `/proc/self/cmdline`
 * @param count how many arguments the program got
 * @returns their bytes, or undefined when the command line has fewer entries
 */
export function rawArgs(cmdline: Uint8Array, count: number): Uint8Array[] | undefined {
  const entries = nulEntries(cmdline);
  return entries.length < count ? undefined : entries.slice(entries.length - count);
}

/**
 * The bytes of an environment variable's value as the process started with it
 * (the first entry of that name, as `getenv` reads it).
 *
 * @param environ `/proc/self/environ`
 * @param name the variable
 * @returns its value's bytes, or undefined when it is not there
 */
export function rawEnv(environ: Uint8Array, name: string): Uint8Array | undefined {
  const prefix = new TextEncoder().encode(`${name}=`);
  for (const entry of nulEntries(environ)) {
    if (entry.length < prefix.length) continue;
    if (prefix.every((b, i) => entry[i] === b)) return entry.subarray(prefix.length);
  }
  return undefined;
}
