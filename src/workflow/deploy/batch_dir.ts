/**
 * Where batch directories live: `--batch-dir`, else `SCOUT_BATCH_DIR`, else
 * `$SCOUT_HOME/var/batch` (Scout uses `~/scout-batch`).
 *
 * @module
 */
import { join, resolve } from "node:path";
import { scoutHome } from "../../config/home.ts";

/**
 * The batch base directory.
 *
 * @param explicit `--batch-dir`
 * @param env environment
 * @returns absolute directory
 */
export function batchBase(
  explicit: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string {
  if (explicit !== undefined) return resolve(explicit);
  if (env.SCOUT_BATCH_DIR) return resolve(env.SCOUT_BATCH_DIR);
  return join(scoutHome(env), "var", "batch");
}
