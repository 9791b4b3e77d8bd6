/**
 * Runs a script of the library under Bun — the binary's runtime, which keeps
 * Object.prototype's `__proto__` accessor — and under Deno, which drops it,
 * each as a real subprocess from the repository root (`./src/…` imports).
 * Tests of names spelled like Object.prototype members run one script in
 * both and compare what it prints.
 *
 * @module
 */
import { join } from "node:path";
import { DENO, ROOT, runCommand } from "./cli.ts";

/** The runtimes a script runs under: the binary's first. */
export const RUNTIMES: readonly ("bun" | "deno")[] = ["bun", "deno"];

/**
 * Runs `script` (a module; it prints one JSON value as its last line) under
 * `runtime` and parses that line; a failure of the script fails the test.
 *
 * @param runtime `bun` (the pinned one in tools/) or `deno` (this one)
 * @param script the module's text
 * @param env extra environment
 * @returns the value printed
 */
export async function runScript(
  runtime: "bun" | "deno",
  script: string,
  env: Record<string, string> = {},
): Promise<unknown> {
  const [cmd, args] = runtime === "bun"
    ? [join(ROOT, "tools/node_modules/.bin/bun"), ["-e", script]]
    : [DENO, ["eval", "-q", `--config=${join(ROOT, "deno.json")}`, script]];
  const r = await runCommand(cmd, args, { env, cwd: ROOT });
  if (r.code !== 0) throw new Error(`${runtime} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!);
}
