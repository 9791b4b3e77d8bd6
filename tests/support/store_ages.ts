/**
 * Job stores of some age for the `system clean` tests: the bundled Baking
 * jobs made by real runs, and a job's files (result, `.info`) dated back.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, runMain } from "./cli.ts";

/** The bundled workflows. */
export const BAKING: string = join(ROOT, "fixtures", "workflows", "Baking");
export const SLOW: string = join(ROOT, "fixtures", "workflows", "Slow");

/** The Baking jobs {@link bakeStore} makes, by what they are (short paths). */
export const JOBS = {
  cake: "Baking/cake/Default_b1e6593158fbb625365985972b0c15fd",
  batter: "Baking/batter/Default_8a5584e7aa2b07b58b06e14eb665a07e.json",
  whisk3: "Baking/whisk/Default_09c565660e3592e6a4001674e5a22269",
  whisk5: "Baking/whisk/Default_456ec1d94f91d621866fd889ad3e3f1c",
  broken: "Baking/broken/Default",
} as const;

/** The run options of a store under `dir`: its own SCOUT_HOME and HOME. */
export function storeOpts(dir: string, env: Record<string, string> = {}) {
  return {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "scout"), HOME: dir, NO_COLOR: "1", ...env },
  };
}

/** The absolute path of a job of the store under `dir`. */
export function jobPath(dir: string, short: string): string {
  return join(dir, "scout", "var", "jobs", short);
}

/** Makes the Baking jobs: cake (with batter and whisk --eggs 3), whisk --eggs 5, broken (an error). */
export async function bakeStore(dir: string): Promise<void> {
  const o = storeOpts(dir);
  for (const args of [["cake", "--eggs", "3"], ["whisk", "--eggs", "5"]]) {
    const r = await runMain(["workflow", "task", BAKING, ...args], o);
    assert.equal(r.code, 0, r.stderr);
  }
  const broken = await runMain(["workflow", "task", BAKING, "broken"], o);
  assert.equal(broken.code, 1, broken.stderr);
  for (const short of Object.values(JOBS)) {
    assert.ok(existsSync(jobPath(dir, short) + ".info"), short);
  }
}

/** Dates a job's result and `.info` (both times) `days` back. */
export function ageJob(path: string, days: number): void {
  const t = new Date(Date.now() - days * 86_400_000);
  for (const f of [path, path + ".info"]) if (existsSync(f)) Deno.utimeSync(f, t, t);
}

/** Whether anything of a job is left: its result or its `.info`. */
export function present(path: string): boolean {
  return existsSync(path) || existsSync(path + ".info");
}

/**
 * Writes a job of the store under `dir` (`<dir>/scout/var/jobs/<short>`):
 * its result (unless null) and its `.info`.
 *
 * @returns the job's path
 */
export function putJob(
  dir: string,
  short: string,
  info: string | Uint8Array,
  result: string | null,
): string {
  const path = jobPath(dir, short);
  mkdirSync(dirname(path), { recursive: true });
  if (result !== null) writeFileSync(path, result);
  writeFileSync(path + ".info", info);
  return path;
}

/** A done job (a result and a `done` `.info`) last used `days` ago. */
export function putDoneJob(dir: string, short: string, days: number): string {
  const p = putJob(dir, short, JSON.stringify({ status: "done" }), "data\n");
  ageJob(p, days);
  return p;
}
