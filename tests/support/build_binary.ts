/**
 * Builds the binary for tests with exactly the command of `deno task build`
 * (read from deno.json), writing to a given path instead of `dist/scout-ai`.
 *
 * The suite's wrapper (`suite.ts`) builds it once and hands its path to every
 * test file in `SCOUT_TEST_BINARY` ({@link SHARED_BINARY_VAR}); a test file
 * run on its own builds its own (`buildBinary` in `cli.ts`). Before, each of
 * the ~35 files that run the binary built it: 35 builds of a 120 MB file
 * (3 s of CPU each) a suite run.
 *
 * @module
 */
import { join } from "node:path";

/** The variable that names a binary already built for this suite run. */
export const SHARED_BINARY_VAR = "SCOUT_TEST_BINARY";

/** `deno task build`'s command and arguments, with `outfile` for `dist/scout-ai`. */
export function buildCommand(root: string, outfile: string): { cmd: string; args: string[] } {
  const config = JSON.parse(Deno.readTextFileSync(join(root, "deno.json")));
  const task: string = config.tasks.build;
  if (!task.includes("--outfile dist/scout-ai")) {
    throw new Error(`unexpected build task: ${task}`);
  }
  const [cmd, ...args] = task.replace("--outfile dist/scout-ai", `--outfile ${outfile}`).split(
    /\s+/,
  );
  return { cmd: join(root, cmd!), args };
}

/** Builds the binary into `outfile`; throws with the build's stderr when it fails. */
export async function buildBinaryAt(root: string, outfile: string): Promise<void> {
  const { cmd, args } = buildCommand(root, outfile);
  const out = await new Deno.Command(cmd, {
    args,
    cwd: root,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0) {
    throw new Error(
      `build failed (${cmd} ${args.join(" ")}):\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
}
