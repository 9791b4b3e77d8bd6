/**
 * The suite's own HOME (R77-6). `~/.scout` is the user's Scout home, shared
 * with the Ruby Scout: a test, or the code it runs, that is given an env
 * without `SCOUT_HOME` (or none: then the process's) writes there. The
 * wrapper (`suite.ts`) runs the tests with `HOME` set to a fresh temporary
 * directory, so such a write lands in `<temp HOME>/.scout` instead, and fails
 * the suite naming what was written ({@link strayWrites}); the directory is
 * removed afterwards. A `SCOUT_HOME` in the wrapper's environment (the user's
 * own) is replaced the same way: the tests get `<temp HOME>/SCOUT_HOME`,
 * checked alike.
 *
 * What the children need from the real home is set explicitly to where it
 * is: Deno's cache (`DENO_DIR`) and Bun's (`BUN_INSTALL_CACHE_DIR`, which
 * holds its transpiler cache too), so nothing is fetched or compiled again.
 *
 * @module
 */
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";

/** Where a test may have written, under the temporary HOME, and how a line names it. */
const GUARDED = [
  { dir: ".scout", shown: "~/.scout" },
  { dir: "SCOUT_HOME", shown: "$SCOUT_HOME" },
] as const;

/** A temporary HOME for a suite run and the environment its tests get. */
export interface SuiteHome {
  /** The temporary HOME (absolute). */
  home: string;
  /** The variables the suite's environment overrides. */
  env: Record<string, string>;
}

/**
 * Makes a fresh temporary HOME and the environment that points the tests at
 * it, keeping Deno's and Bun's caches where they are.
 *
 * @param env the wrapper's environment
 * @returns the home and the variables to set
 */
export async function makeSuiteHome(
  env: Record<string, string | undefined> = Deno.env.toObject(),
): Promise<SuiteHome> {
  const home = mkdtempSync(join(tmpdir(), "scout-suite-home-"));
  const realHome = env.HOME || homedir();
  const vars: Record<string, string> = {
    HOME: home,
    DENO_DIR: await denoDir(env, realHome),
    BUN_INSTALL_CACHE_DIR: bunCacheDir(env, realHome),
  };
  if (env.SCOUT_HOME) vars.SCOUT_HOME = join(home, "SCOUT_HOME");
  return { home, env: vars };
}

/** Deno's cache: `DENO_DIR`, else what `deno info` reports, else its Linux default. */
async function denoDir(env: Record<string, string | undefined>, realHome: string) {
  if (env.DENO_DIR) return resolve(env.DENO_DIR);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const dir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
    if (typeof dir === "string" && dir !== "") return dir;
  } catch { /* below */ }
  return defaultDenoDir(env, realHome);
}

/** Deno's cache where Deno puts it on Linux when `DENO_DIR` is unset. */
function defaultDenoDir(env: Record<string, string | undefined>, realHome: string): string {
  return join(env.XDG_CACHE_HOME || join(realHome, ".cache"), "deno");
}

/**
 * For a test file run on its own (`deno test tests/x_test.ts`, not through
 * the suite's wrapper): points this process's environment, which the tests'
 * children inherit, at Deno's and Bun's caches under the real HOME, as
 * {@link makeSuiteHome} does. Without it a child given a temporary `HOME`
 * starts with an empty Deno cache: it downloads every npm package it loads
 * (seconds per child), and Deno installs its own SIGHUP/SIGINT/SIGTERM
 * handlers while it does, before any of scout-ai's code runs — so a signal
 * the child started with ignored no longer is (the R107-2 tests failed under
 * load that way). Sets only what is unset.
 */
export function keepToolCaches(): void {
  const env = Deno.env.toObject();
  const realHome = env.HOME || homedir();
  if (!env.DENO_DIR) {
    Deno.env.set("DENO_DIR", defaultDenoDir(env, realHome));
  }
  if (!env.BUN_INSTALL_CACHE_DIR) Deno.env.set("BUN_INSTALL_CACHE_DIR", bunCacheDir(env, realHome));
}

/** Bun's cache, in Bun's own order of precedence. */
function bunCacheDir(env: Record<string, string | undefined>, realHome: string): string {
  if (env.BUN_INSTALL_CACHE_DIR) return resolve(env.BUN_INSTALL_CACHE_DIR);
  if (env.BUN_INSTALL) return join(env.BUN_INSTALL, "install", "cache");
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, ".bun", "install", "cache");
  return join(realHome, ".bun", "install", "cache");
}

/**
 * What the tests wrote into the Scout homes under a suite's temporary HOME
 * (`.scout`, and `SCOUT_HOME` when the wrapper set one): every file, and
 * every empty directory (with a trailing `/`: a lock directory made and left
 * is a write too), as `~/.scout/…` or `$SCOUT_HOME/…`, sorted.
 *
 * @param home the suite's temporary HOME
 * @returns the paths; empty when nothing was written
 */
export function strayWrites(home: string): string[] {
  const found: string[] = [];
  const walk = (path: string, shown: string) => {
    if (!lstatSync(path).isDirectory()) return void found.push(shown);
    const names = readdirSync(path);
    if (names.length === 0) found.push(`${shown}/`);
    for (const name of names) walk(join(path, name), `${shown}/${name}`);
  };
  for (const { dir, shown } of GUARDED) {
    if (existsSync(join(home, dir))) walk(join(home, dir), shown);
  }
  return found.sort();
}

/**
 * The one line that fails the suite for `paths` (at most ten named).
 *
 * @param paths what {@link strayWrites} found (not empty)
 * @returns the line
 */
export function strayWritesLine(paths: readonly string[]): string {
  const named = paths.slice(0, 10).join(", ") +
    (paths.length > 10 ? ` and ${paths.length - 10} more` : "");
  return `suite: FAILED: the tests wrote into the user's Scout home (here the suite's temporary ` +
    `HOME): ${named}; a test must give what it runs a SCOUT_HOME of its own (R77-6)`;
}

/**
 * Deno's summary line (`ok | 12 passed (3 steps) | 0 failed (4s)`, colours
 * and all) with one more failure, for the check that failed after it; null
 * for any other line.
 *
 * @param line a line of the suite's output
 * @returns the summary, counting one more failure
 */
export function summaryWithFailure(line: string): string | null {
  const plain = stripVTControlCharacters(line);
  const m = /^(?:ok|FAILED) \| (\d+) passed( \(\d+ steps?\))? \| (\d+) failed/.exec(plain);
  if (m === null) return null;
  return `FAILED | ${m[1]} passed${m[2] ?? ""} | ${Number(m[3]) + 1} failed ` +
    `(one: the tests wrote into ~/.scout)`;
}

/**
 * Removes the suite's temporary HOME.
 *
 * @param home the directory
 * @returns null, or why it could not be removed
 */
export function removeSuiteHome(home: string): string | null {
  try {
    rmSync(home, { recursive: true, force: true });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
