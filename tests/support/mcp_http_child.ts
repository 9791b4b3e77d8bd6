/**
 * The SDK test MCP server (`mcp_server.ts`) over Streamable HTTP as a child
 * process: started on a port (0: any free one), its url read from the first
 * line it prints; and stopped with its stdout released.
 *
 * @module
 */
import { join } from "node:path";

const SERVER = join(import.meta.dirname!, "mcp_server.ts");

/** A running HTTP test server. */
export interface HttpMcpChild {
  /** The child process. */
  child: Deno.ChildProcess;
  /** Its MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  url: string;
}

/**
 * Starts the test server over HTTP.
 *
 * @param args its options after `--http PORT` (`--sse`, `--cursor repeat`, …)
 * @param port the port (0: a free one)
 * @returns the child and its url
 */
export async function startHttpMcpServer(args: string[] = [], port = 0): Promise<HttpMcpChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SERVER, "--http", String(port), ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) first += (await reader.read()).value ?? "";
  reader.releaseLock();
  return { child, url: JSON.parse(first.split("\n")[0]!).url as string };
}

/**
 * Stops a child started by {@link startHttpMcpServer} (already ended is fine).
 *
 * @param child the child process
 */
export async function stopHttpMcpServer(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill();
  } catch { /* ended */ }
  await child.status;
  await child.stdout.cancel().catch(() => {});
}
