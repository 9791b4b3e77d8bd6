/**
 * `scout-ai workflow mcp … --http 0 --json` from source as a child process
 * (its url read from the line it prints), and a raw JSON-RPC POST to it
 * through `node:http` (so a test can set `Host`, `Origin` or a session
 * header, and cut the connection).
 *
 * @module
 */
import { request } from "node:http";
import { join } from "node:path";
import { spawnScout } from "./cli.ts";

/** A running `workflow mcp --http` server. */
export interface ServedMcp extends AsyncDisposable {
  /** Its MCP endpoint. */
  url: string;
  /** Its port. */
  port: number;
  /** The child process. */
  proc: Deno.ChildProcess;
  /** What it printed on stderr so far. */
  stderr: () => string;
}

/**
 * Starts `workflow mcp <workflow> --http 0 --json` in `dir` with
 * `SCOUT_HOME=<dir>/home`; disposing it sends SIGTERM and waits.
 *
 * @param dir working directory
 * @param workflow the workflow argument
 * @param extra further arguments (`--host …`)
 * @param env further environment
 * @returns the server
 */
export async function serveMcpHttp(
  dir: string,
  workflow: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<ServedMcp> {
  const proc = spawnScout(["workflow", "mcp", workflow, "--http", "0", "--json", ...extra], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), ...env },
  });
  let err = "";
  void proc.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (c) => void (err += c) }),
  );
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server ended: " + err);
    line += value;
  }
  reader.releaseLock();
  void proc.stdout.cancel().catch(() => {});
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    port: Number(new URL(url).port),
    proc,
    stderr: () => err,
    [Symbol.asyncDispose]: async () => {
      try {
        proc.kill("SIGTERM");
      } catch { /* ended */ }
      await proc.status;
    },
  };
}

/**
 * A raw POST of a JSON-RPC message to `/mcp`.
 *
 * @param port the server's port
 * @param headers headers besides content-type and accept
 * @param body the message
 * @param signal cuts the connection
 * @param address the address to connect to
 * @returns the status, the body and the response headers
 */
export function postMcp(
  port: number,
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
  address = "127.0.0.1",
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({
      ...(signal ? { signal } : {}),
      host: address,
      port,
      path: "/mcp",
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on(
        "end",
        () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }),
      );
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
