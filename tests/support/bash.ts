/**
 * `scout-ai` in a real `bash`, from source or as the built binary: a script
 * calls `scout …` (a bash function running the chosen one), so pipelines,
 * redirections and `PIPESTATUS` are the shell's own.
 */
import { BINARY, type CliResult, DENO, SCOUT_SOURCE_ARGS } from "./cli.ts";

/** The two ways to run `scout-ai` (call `buildBinary` before using `binary`). */
export const RUNNERS: Record<"source" | "binary", readonly string[]> = {
  source: [DENO, ...SCOUT_SOURCE_ARGS],
  binary: [BINARY],
};

/** A runner's name. */
export type Runner = keyof typeof RUNNERS;

/** `s` quoted for bash. */
export const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `script` in bash, with `scout` the given runner's `scout-ai`
 * (`NO_COLOR` set, then `o.env`).
 */
export async function sh(
  runner: Runner,
  script: string,
  o: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  const fn = `scout() { ${RUNNERS[runner].map(quote).join(" ")} "$@"; }\n`;
  const out = await new Deno.Command("bash", {
    args: ["-c", fn + script],
    cwd: o.cwd,
    env: { NO_COLOR: "1", ...o.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
