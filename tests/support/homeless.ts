/**
 * Running `scout-ai` from source where the OS knows no home: as uid 54321,
 * which has no passwd entry, with `HOME` unset (a container run with
 * `--user 54321`). There Deno's `os.homedir()` returns null and Bun's throws
 * `uv_os_homedir` ENOENT, so a run is made under each runtime. Needs root and
 * setpriv: a test that uses this fails without them (see
 * {@link assertCanRunHomeless}).
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, DENO, ROOT, SCOUT_SOURCE_ARGS } from "./cli.ts";

/** A uid with no passwd entry. */
export const HOMELESS_UID = 54321;

/** The runtimes a homeless run is made under. */
export const RUNTIMES = ["deno", "bun"] as const;

/** Fails, in one line, unless this process can run commands as {@link HOMELESS_UID}. */
export function assertCanRunHomeless(): void {
  const setpriv = (() => {
    try {
      return new Deno.Command("setpriv", { args: ["--version"], stdout: "null" }).outputSync()
        .success;
    } catch {
      return false;
    }
  })();
  assert.ok(
    Deno.uid() === 0 && setpriv,
    "needs root and setpriv (util-linux) to run as a uid without a passwd entry",
  );
  const entry = new Deno.Command("getent", { args: ["passwd", String(HOMELESS_UID)] })
    .outputSync();
  assert.equal(entry.stdout.length, 0, `uid ${HOMELESS_UID} has a passwd entry here`);
}

/**
 * Runs `cli.ts` from source as {@link HOMELESS_UID}, `HOME` unset, in `dir`.
 *
 * @param runtime deno or bun
 * @param args the CLI's arguments
 * @param dir working directory (made open to all; its `.deno/` Deno's cache)
 * @param env the only other environment (`PATH` and `NO_COLOR` besides)
 * @returns exit code and output
 */
export async function runHomeless(
  runtime: (typeof RUNTIMES)[number],
  args: string[],
  dir: string,
  env: Record<string, string>,
): Promise<CliResult> {
  chmodSync(dir, 0o777);
  const denoDir = join(dir, ".deno");
  mkdirSync(denoDir, { recursive: true });
  chmodSync(denoDir, 0o777);
  const cmd = runtime === "deno"
    ? [DENO, ...SCOUT_SOURCE_ARGS]
    : [realpathSync(join(ROOT, "tools/node_modules/.bin/bun")), join(ROOT, "cli.ts")];
  const id = String(HOMELESS_UID);
  const out = await new Deno.Command("setpriv", {
    args: [`--reuid=${id}`, `--regid=${id}`, "--clear-groups", ...cmd, ...args],
    cwd: dir,
    clearEnv: true,
    env: { DENO_DIR: denoDir, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "", ...env },
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
