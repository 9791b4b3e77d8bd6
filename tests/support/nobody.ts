/**
 * Running `scout-ai` from source as another user: `nobody` (setpriv) when
 * the tests run as root, else as this user (whose own permissions a test
 * then takes away with chmod). `HOME` is the given directory, the
 * environment otherwise only what is passed.
 */
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, DENO, SCOUT_SOURCE_ARGS } from "./cli.ts";

/** Whether {@link runAsNobody} runs as another user (the tests run as root). */
export const AS_NOBODY: boolean = Deno.uid() === 0;

/**
 * Runs `cli.ts` from source as `nobody` (setpriv) when root, else as this user.
 *
 * @param args the CLI's arguments
 * @param dir working directory and `HOME` (its `.deno/` the Deno cache, open to all)
 * @param env more environment
 * @returns exit code and output
 */
export async function runAsNobody(
  args: string[],
  dir: string,
  env: Record<string, string>,
): Promise<CliResult> {
  const denoDir = join(dir, ".deno");
  mkdirSync(denoDir, { recursive: true });
  chmodSync(denoDir, 0o777);
  const all = [...SCOUT_SOURCE_ARGS, ...args];
  const [cmd, argv] = AS_NOBODY
    ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", DENO, ...all]]
    : [DENO, all];
  const out = await new Deno.Command(cmd, {
    args: argv,
    cwd: dir,
    clearEnv: true,
    env: { HOME: dir, DENO_DIR: denoDir, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
