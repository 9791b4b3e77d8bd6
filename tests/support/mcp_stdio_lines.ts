/**
 * What a client writes to a stdio MCP server, as newline-delimited JSON-RPC:
 * `initialize`, `notifications/initialized`, then the given messages; and
 * `workflow mcp` started from source as such a server.
 *
 * @module
 */
import { spawnScout } from "./cli.ts";

/**
 * The lines of a stdio MCP session.
 *
 * @param messages the messages after the handshake (`jsonrpc` is added)
 * @returns the text to write to the server's stdin
 */
export function mcpStdioSession(...messages: Record<string, unknown>[]): string {
  return [
    {
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "sh", version: "1" },
      },
    },
    { method: "notifications/initialized" },
    ...messages,
  ].map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n").join("");
}

/**
 * Starts `scout-ai workflow mcp ARGS…` from source, its stdin, stdout and
 * stderr piped, killed after 30 s.
 *
 * @param cwd its working directory
 * @param env its environment
 * @param args `workflow mcp`'s arguments (the workflow, its tasks)
 * @returns the server's process
 */
export function spawnWorkflowMcp(
  cwd: string,
  env: Record<string, string>,
  args: string[],
): Deno.ChildProcess {
  return spawnScout(["workflow", "mcp", ...args], {
    cwd,
    env,
    stdin: "piped",
    signal: AbortSignal.timeout(30_000),
  });
}
