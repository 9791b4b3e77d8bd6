/**
 * How the running program starts itself again (deploy workers and batch
 * scripts run *this* scout-ai on one job): the compiled binary is its own
 * executable; from source it is the runtime (`deno run`, `bun`) on `cli.ts`.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { inCompiledBinary } from "../../util/binary.ts";

/**
 * The command (executable and leading arguments) that runs this scout-ai:
 * `[binary]` inside the compiled binary, `[deno, "run", "-A", "--config",
 * deno.json, cli.ts]` from source under Deno, `[bun, cli.ts]` under Bun.
 * `SCOUT_AI_SELF` (a command line split on spaces) overrides it.
 *
 * @param env environment (for `SCOUT_AI_SELF`)
 * @returns argv prefix
 */
export function selfCommand(env: Record<string, string | undefined> = process.env): string[] {
  const forced = env.SCOUT_AI_SELF?.trim();
  if (forced) return forced.split(/\s+/);
  if (inCompiledBinary(import.meta.url)) return [process.execPath];
  const cli = fileURLToPath(new URL("../../../cli.ts", import.meta.url));
  const config = fileURLToPath(new URL("../../../deno.json", import.meta.url));
  if ((process.versions as Record<string, string | undefined>).bun !== undefined) {
    return [process.execPath, cli];
  }
  return [process.execPath, "run", "-A", "--quiet", "--config", config, cli];
}
