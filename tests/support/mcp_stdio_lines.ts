/**
 * What a client writes to a stdio MCP server, as newline-delimited JSON-RPC:
 * `initialize`, `notifications/initialized`, then the given messages.
 *
 * @module
 */

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
