/**
 * The set-up of the `llm ask` CLI tests (`llm_ask_test.ts`,
 * `llm_ask_files_test.ts`): a temp directory, the loopback provider, flags
 * that point `llm ask` at it, and `run` (in-process `scout-ai llm …`).
 *
 * @module
 */
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** The API key of these tests (it must reach the provider as a bearer token only). */
export const KEY = "sk-cli-SECRET-0042";

/** A temp directory and a provider; disposed together. */
export async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: KEY };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "test-model"];
  return {
    dir,
    srv,
    env,
    flags,
    run: (args: string[], o: { stdin?: string; tty?: boolean } = {}) =>
      runMain(["llm", ...args], { env, cwd: dir.path, ...o }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}
