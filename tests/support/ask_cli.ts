/**
 * A workspace for CLI tests of `llm ask` and `agent ask` together: a temp
 * directory with an agent `Helper` (`system: You help`), a loopback provider
 * answering every request with one text, and the flags that point either
 * command at it.
 */
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "./cli.ts";
import { put } from "./files.ts";
import { startProviderServer } from "./provider_server.ts";

/** The two commands, by name: `llm ask …` and `agent ask Helper …`. */
export const ASK_COMMANDS: [string, string[]][] = [
  ["llm ask", ["llm", "ask"]],
  ["agent ask", ["agent", "ask", "Helper"]],
];

/** A message as the provider received it. */
export type Sent = { role: string; content: string };

/**
 * The workspace, disposed with `await using`.
 *
 * @param answer the provider's answer to every request
 */
export async function askWorkspace(answer: string) {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: answer }) });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache", "--no-stream"];
  put(dir.path, "Agent/Helper/start_chat", "system: You help\n");
  clearAgentCache();
  return {
    dir,
    srv,
    path: (f: string) => join(dir.path, f),
    /** Runs the CLI with the provider's flags after `args`. */
    run: (args: string[], stdin?: string) =>
      runMain([...args, ...flags], { env, cwd: dir.path, ...(stdin ? { stdin } : {}) }),
    /** The user messages of the last request. */
    users: () =>
      (srv.requests.at(-1)!.body.messages as Sent[]).filter((m) => m.role === "user")
        .map((m) => m.content),
    /** The last request's messages, without the agent's start chat. */
    sent: () =>
      (srv.requests.at(-1)!.body.messages as Sent[]).filter((m) => m.content !== "You help"),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}
