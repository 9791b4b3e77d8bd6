/**
 * Runs a bash script in which `scout` is the CLI from source, for tests of
 * what only a shell gives a command: `<(…)` pipes, FIFOs made by `mkfifo`,
 * redirections. Each `scout` run is killed after a time limit by SIGKILL: a
 * process blocked opening a FIFO nobody writes does not end on SIGTERM.
 *
 * @module
 */
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS } from "./cli.ts";

/** `s` quoted for bash. */
export const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `script` with bash in `cwd` (`SCOUT_HOME` is `<cwd>/home`), `scout`
 * being the CLI from source, each run killed after `limitS` seconds (exit 137).
 *
 * @param script the script
 * @param cwd its working directory
 * @param limitS the time limit of one `scout` run
 * @returns its stdout and stderr
 */
export async function scoutBash(
  script: string,
  cwd: string,
  limitS = 30,
): Promise<{ stdout: string; stderr: string }> {
  const cli = [DENO, ...SCOUT_SOURCE_ARGS].map(shellQuote).join(" ");
  const fn = `scout() { timeout -s KILL ${limitS} ${cli} "$@"; }\n`;
  const out = await new Deno.Command("bash", {
    args: ["-c", fn + script],
    cwd,
    env: { NO_COLOR: "1", SCOUT_HOME: join(cwd, "home"), PATH: Deno.env.get("PATH") ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
