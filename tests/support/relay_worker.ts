/**
 * A relay worker's home for tests: an endpoint `loop` (openai at the
 * loopback provider) and a key only the worker has.
 *
 * @module
 */
import { join } from "node:path";
import type { ProviderServer } from "./provider_server.ts";

/**
 * Writes the worker's `SCOUT_HOME` under `dir`.
 *
 * @param dir a temp directory
 * @param srv the loopback provider
 * @returns the worker's environment
 */
export async function workerHome(
  dir: string,
  srv: ProviderServer,
): Promise<Record<string, string>> {
  const home = join(dir, "worker-home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: worker-model\n`,
  );
  return { SCOUT_HOME: home, LLM_ENDPOINT: "loop", OPENAI_API_KEY: "sk-worker-only" };
}
