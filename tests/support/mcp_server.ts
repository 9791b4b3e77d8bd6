/**
 * A real MCP server for tests, built with the SDK's `McpServer`: stdio (the
 * default) or Streamable HTTP (`--http 0` binds 127.0.0.1 on a free port and
 * prints `{"url"}` on stdout). Tools:
 * - `echo {text}` → the text; `add {a, b}` → the sum as text
 * - `slow {ms}` → waits, then "slept <ms>" (with `MCP_SLOW_FILE` set, it appends
 *   `start <ms>` to that file as it begins, `done <ms>` once it has waited)
 * - `fail {message}` → an `isError` result
 * - `crash {after_ms?}` → the server process exits (code 3) mid-call (after
 *   `after_ms`: over HTTP with `--sse` the reply's stream has begun by then)
 * - `whoami` → `{pid, authorization}` (the Authorization header over HTTP)
 * - `progress {ms, every}` → waits `ms`, sending a progress notification every
 *   `every` ms when the call carries a `progressToken`, then "done <n> progress"
 * With `--odd-names` it also lists `ns.tool/slash`, `ns_tool_slash` and an
 * 82-character name (not valid provider function names but for the second).
 * With `--dot-name` it also lists `ns.dot` (offered as `ns_dot`) and `ask`
 * (the name of an agent's own delegation tool).
 * With `--cursor repeat` its `tools/list` always answers `nextCursor: "again"`;
 * with `--cursor grow` a new cursor every page: a listing that never ends.
 * Over HTTP with `--sse` replies are SSE streams (the SDK's default) rather
 * than JSON.
 * Its pid is appended to the file named by `MCP_PID_FILE` (one line per start).
 * With `--linger` it keeps running after its stdin closes (a server that
 * ignores EOF: only a signal ends it).
 * Over HTTP with `--drop-get <ms>` a GET (the client's standalone
 * notification stream) is answered by an SSE stream the server breaks off
 * (the connection cut) after `ms`: a proxy's idle timeout; the client
 * reconnects it.
 *
 * `tools/deno run -A tests/support/mcp_server.ts [--http 0]`
 */
import { appendFileSync } from "node:fs";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** Whether a process is alive (signal 0 equivalent). */
export function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process runs: alive and not a zombie (an orphan whose new parent
 * does not reap it, or has not yet, still answers signals). Linux `/proc`;
 * elsewhere {@link alive}.
 */
export function running(pid: number): boolean {
  const stat = procStat(pid);
  if (stat === undefined) return alive(pid);
  const at = stat.lastIndexOf(")") + 2;
  return at > 1 && stat.slice(at, at + 1) !== "Z";
}

/**
 * `/proc/<pid>/stat` ("" for no such process), undefined without `/proc`
 * (Deno reads it only with all permissions, which the suite's `-P=test` set
 * has since R145-4).
 */
function procStat(pid: number): string | undefined {
  if (!PROC) return undefined;
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return "";
  }
}

/** Whether this process can read `/proc`. */
const PROC: boolean = (() => {
  try {
    return Deno.statSync("/proc/self/stat").isFile;
  } catch {
    return false; // not there, or Deno's permissions keep it
  }
})();

/** The pids recorded in a `MCP_PID_FILE`. */
export async function recordedPids(file: string): Promise<number[]> {
  const t = await Deno.readTextFile(file).catch(() => "");
  return t.split("\n").filter(Boolean).map(Number);
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

/** An 82-character tool name (over the providers' 64). */
export const LONG_TOOL_NAME = `long_${"x".repeat(72)}_name`;

interface Extra {
  requestInfo?: { headers?: unknown };
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: "notifications/progress"; params: never }) => Promise<void>;
}

/** The test server with its tools (a fresh one per HTTP request: stateless). */
export function testMcpServer(args: readonly string[] = []): McpServer {
  const server = new McpServer({ name: "scout-test", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echo the text back",
    inputSchema: { text: z.string().describe("Text to echo") },
  }, ({ text: t }: { text: string }) => text(t));
  server.registerTool("add", {
    description: "Add two numbers",
    inputSchema: { a: z.number(), b: z.number() },
  }, ({ a, b }: { a: number; b: number }) => text(String(a + b)));
  server.registerTool("slow", {
    description: "Wait, then answer",
    inputSchema: { ms: z.number().int() },
  }, async ({ ms }: { ms: number }) => {
    const marks = Deno.env.get("MCP_SLOW_FILE");
    if (marks) appendFileSync(marks, `start ${ms}\n`);
    await new Promise((r) => setTimeout(r, ms));
    if (marks) appendFileSync(marks, `done ${ms}\n`);
    return text(`slept ${ms}`);
  });
  server.registerTool("fail", {
    description: "Always fails",
    inputSchema: { message: z.string().optional() },
  }, ({ message }: { message?: string }) => ({ ...text(message ?? "it failed"), isError: true }));
  server.registerTool("crash", {
    description: "Kills the server mid-call",
    inputSchema: { after_ms: z.number().int().optional() },
  }, async ({ after_ms }: { after_ms?: number }) => {
    if (after_ms) await new Promise((r) => setTimeout(r, after_ms));
    Deno.exit(3);
  });
  server.registerTool(
    "whoami",
    { description: "Pid and Authorization header" },
    (extra: Extra) => {
      const headers = extra.requestInfo?.headers as Record<string, string> | undefined;
      return text(JSON.stringify({
        pid: Deno.pid,
        authorization: headers?.authorization ?? null,
      }));
    },
  );
  server.registerTool("progress", {
    description: "Wait, reporting progress",
    inputSchema: { ms: z.number().int(), every: z.number().int() },
  }, async ({ ms, every }: { ms: number; every: number }, extra: Extra) => {
    const token = extra._meta?.progressToken;
    let n = 0;
    for (let waited = 0; waited < ms; waited += every) {
      await new Promise((r) => setTimeout(r, every));
      if (token === undefined) continue;
      n++;
      const params = { progressToken: token, progress: n } as never;
      await extra.sendNotification({ method: "notifications/progress", params });
    }
    return text(`done ${n} progress`);
  });
  if (args.includes("--odd-names")) {
    for (const name of ["ns.tool/slash", "ns_tool_slash", LONG_TOOL_NAME]) {
      server.registerTool(name, { description: `I am ${name}` }, () => text(`called ${name}`));
    }
  }
  if (args.includes("--dot-name")) {
    for (const name of ["ns.dot", "ask"]) {
      server.registerTool(name, { description: `I am ${name}` }, () => text(`called ${name}`));
    }
  }
  const cursor = args[args.indexOf("--cursor") + 1];
  if (args.includes("--cursor")) {
    let page = 0;
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: "echo", inputSchema: { type: "object" as const } },
        { name: `page${page}`, inputSchema: { type: "object" as const } },
      ],
      nextCursor: cursor === "grow" ? `p${++page}` : "again",
    }));
  }
  return server;
}

if (import.meta.main) {
  const pidFile = Deno.env.get("MCP_PID_FILE");
  if (pidFile) appendFileSync(pidFile, `${Deno.pid}\n`);
  if (Deno.args.includes("--linger")) setInterval(() => {}, 1000);
  const i = Deno.args.indexOf("--http");
  if (i < 0) {
    await testMcpServer(Deno.args).connect(new StdioServerTransport());
  } else {
    const port = Number(Deno.args[i + 1] ?? 0);
    const drop = Deno.args.indexOf("--drop-get");
    const srv = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (req) => {
      if (drop >= 0 && req.method === "GET") return droppedStream(Number(Deno.args[drop + 1]));
      const server = testMcpServer(Deno.args);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !Deno.args.includes("--sse"),
      });
      await server.connect(transport);
      return transport.handleRequest(req);
    });
    console.log(JSON.stringify({ url: `http://127.0.0.1:${srv.addr.port}/mcp` }));
  }
}

/** An SSE response whose stream errors (the connection is cut) after `ms`. */
function droppedStream(ms: number): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(": open\n\n"));
      setTimeout(() => c.error(new Error("idle timeout")), ms);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}
