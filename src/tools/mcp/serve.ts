/**
 * Serving a workflow over MCP (`workflow.md` §6.5): the offered tasks (the
 * named ones, else the exported ones, else all) become MCP tools with the
 * §6.2 schema (`properties` + `required`) and the annotations read-only,
 * non-destructive, idempotent, closed-world. A call runs the task as a
 * persisted job (cached; provenance sees it) and answers with its result as
 * text (bytes that are not UTF-8: a base64 `resource`); a failed job or bad
 * input is an MCP tool error, never a crash — arguments that do not fit the
 * advertised schema (a type, a `select`'s choices, a required input) run no
 * job, checked as a model's tool call is (`validate.ts`); an unknown tool is a protocol
 * error (-32602). A chat input holds the caller's plain messages only
 * (`untrusted_args.ts`). Transports: stdio (what tasks print goes to stderr), or
 * Streamable HTTP on a loopback port (a session per client that initializes,
 * `http_sessions.ts`), refusing a foreign `Host`
 * or `Origin` (DNS rebinding).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createServer, type Server as HttpServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { ScoutError } from "../../errors.ts";
import { errnoReason } from "../../util/errno_text.ts";
import type { Workflow } from "../../workflow/define.ts";
import { taskOf } from "../../workflow/define.ts";
import { normalizeOutput } from "../content.ts";
import { isToolOutput, type JsonSchema, type ToolFunction } from "../types.ts";
import { argumentsError } from "../validate.ts";
import { rebindingRefusal } from "./http_guard.ts";
import { inFlight } from "./http_shutdown.ts";
import { mcpHttpRouter } from "./http_sessions.ts";
import { trackUnanswered } from "./stdio_drain.ts";
import { divertStdout } from "./stdout_divert.ts";
import { refuseDirectiveChat } from "./untrusted_args.ts";
import {
  taskToolDefinition,
  taskToolFunction,
  workflowToolNames,
  type WorkflowToolOptions,
} from "../workflow.ts";
import { jsonText } from "../../util/json_text.ts";
import { wellFormed } from "../../util/code_points.ts";

/** One served tool as MCP lists it. */
export interface ServedTool {
  /** Task name. */
  name: string;
  /** Task description. */
  description: string;
  /** `{type: "object", properties, required}`. */
  inputSchema: { type: "object"; properties: Record<string, JsonSchema>; required: string[] };
  /** §6.5 annotations. */
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

/**
 * The MCP tool list of a workflow (§6.5).
 *
 * @param wf the workflow
 * @param tasks task names (empty = the workflow's offered tasks, §6.1)
 * @returns the tools
 * @throws ScoutError `task_not_found` for an unknown task
 */
export function workflowMcpTools(wf: Workflow, tasks: readonly string[] = []): ServedTool[] {
  const names = tasks.length ? tasks.map((t) => taskOf(wf, t).name) : workflowToolNames(wf);
  return names.map((t) => {
    const fn = taskToolDefinition(wf, t).function;
    return {
      name: t,
      description: fn.description ?? "",
      inputSchema: {
        type: "object",
        properties: fn.parameters?.properties ?? {},
        required: fn.parameters?.required ?? [],
      },
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    };
  });
}

/**
 * A result of bytes that are not UTF-8 (R96-7): an embedded resource with a
 * base64 blob (decoded as text it was garbled), else null.
 */
function binaryBlock(raw: unknown) {
  const value = isToolOutput(raw) ? raw.content : raw;
  if (!(value instanceof Uint8Array) || (isToolOutput(raw) && raw.error)) return null;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(value);
    return null;
  } catch { /* binary */ }
  const path = isToolOutput(raw) && typeof raw.path === "string" ? raw.path : null;
  return {
    type: "resource" as const,
    resource: {
      uri: path ? pathToFileURL(path).href : "data:application/octet-stream",
      mimeType: "application/octet-stream",
      blob: Buffer.from(value).toString("base64"),
    },
  };
}

/**
 * The job's statuses as `notifications/progress` when the call gave a
 * `progressToken` (R96-9); progress counts them (it must increase).
 */
function progressReporter(
  token: string | number | undefined,
  extra: {
    sendNotification: (n: { method: string; params: Record<string, unknown> }) => Promise<void>;
  },
): { onProgress?: (message: string) => void } {
  if (token === undefined) return {};
  let progress = 0;
  return {
    onProgress: (message) =>
      void extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: ++progress, message },
      }).catch(() => {}),
  };
}

function errorText(content: string): string {
  try {
    const parsed = JSON.parse(content) as { exception?: unknown };
    if (parsed && typeof parsed.exception === "string") return parsed.exception;
  } catch { /* plain text */ }
  return content;
}

/**
 * Builds the MCP server of a workflow (not yet connected to a transport).
 *
 * @param wf the workflow
 * @param tasks task names (empty = offered tasks)
 * @param opts job store, cwd, env of the jobs
 * @returns the SDK server
 */
export function workflowMcpServer(
  wf: Workflow,
  tasks: readonly string[] = [],
  opts: WorkflowToolOptions = {},
): Server {
  const tools = workflowMcpTools(wf, tasks);
  const impls = new Map<string, ToolFunction>(
    tools.map((t) => [t.name, taskToolFunction(wf, t.name, opts)]),
  );
  const schemas = new Map<string, JsonSchema>(tools.map((t) => [t.name, t.inputSchema]));
  const server = new Server({ name: wf.name, version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  type CallReq = {
    params: {
      name: string;
      arguments?: Record<string, unknown>;
      _meta?: { progressToken?: string | number };
    };
  };
  type CallExtra = {
    requestId: string | number;
    signal: AbortSignal;
    sendNotification: (n: { method: string; params: Record<string, unknown> }) => Promise<void>;
  };
  server.setRequestHandler(CallToolRequestSchema, async (req: CallReq, extra: CallExtra) => {
    const name = req.params.name;
    const impl = impls.get(name);
    // the SDK writes its messages with JSON.stringify: a lone surrogate as U+FFFD (R162-1)
    const fail = (text: string) => ({
      content: [{ type: "text" as const, text: wellFormed(text) }],
      isError: true,
    });
    // an unknown tool is a protocol error (MCP spec), not a tool's failure (R96-10)
    if (!impl) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool not found '${name}' in workflow ${wf.name}`,
      );
    }
    try {
      // a client's chat text holds plain messages only: no command, tool or file (R115-1)
      refuseDirectiveChat(wf, name, req.params.arguments ?? {});
      // held to the schema it advertises, as a model's tool call is: a bad value runs no job
      // (R126-5)
      const invalid = argumentsError(name, req.params.arguments ?? {}, schemas.get(name));
      if (invalid !== null) return fail(invalid);
      const raw = await impl(name, req.params.arguments ?? {}, {
        id: String(extra.requestId),
        signal: extra.signal,
        ...progressReporter(req.params._meta?.progressToken, extra),
      });
      const blob = binaryBlock(raw);
      const out = await normalizeOutput(raw);
      if (out.error) return fail(errorText(out.content));
      return {
        content: [blob ?? { type: "text" as const, text: wellFormed(out.content) }],
        ...(out.step ? { _meta: { step: out.step } } : {}),
      };
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
  });
  return server;
}

/**
 * Serves a workflow over stdio until stdin closes; the calls read by then
 * are answered first (their jobs run to the end), then it returns.
 *
 * @param wf the workflow
 * @param tasks task names (empty = offered tasks)
 * @param opts job options
 * @returns resolves when the transport closes
 */
export async function serveWorkflowStdio(
  wf: Workflow,
  tasks: readonly string[] = [],
  opts: WorkflowToolOptions = {},
): Promise<void> {
  const server = workflowMcpServer(wf, tasks, opts);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  // stdout carries only MCP messages: what tasks print goes to stderr (R96-2)
  const diverted = divertStdout();
  try {
    const transport = new StdioServerTransport(process.stdin, diverted.stdout);
    await server.connect(transport);
    const unanswered = trackUnanswered(transport);
    // end of input: answer what was asked, then close (closing aborts the handlers)
    process.stdin.once("end", () => void unanswered.idle().then(() => server.close()));
    await closed;
  } finally {
    diverted.restore();
  }
}

/** Options of {@link serveWorkflowHttp}. */
export interface ServeHttpOptions extends WorkflowToolOptions {
  /** Port (0 = any free one). */
  port: number;
  /** Bind address (default 127.0.0.1). */
  host?: string;
}

/**
 * Serves a workflow over Streamable HTTP (a session per client that
 * initializes, else one server per request; `http_sessions.ts`)
 * at `http://host:port/mcp` (any path is accepted).
 *
 * @param wf the workflow
 * @param tasks task names (empty = offered tasks)
 * @param opts port, host, job options
 * @returns the listening HTTP server, its URL, and `shutdown` (answers the
 *   calls in flight with a JSON-RPC error)
 */
export async function serveWorkflowHttp(
  wf: Workflow,
  tasks: readonly string[],
  opts: ServeHttpOptions,
): Promise<{ http: HttpServer; url: string; shutdown: (message: string) => Promise<void> }> {
  workflowMcpTools(wf, tasks); // unknown tasks fail before listening
  const host = opts.host ?? "127.0.0.1";
  const calls = inFlight();
  const router = mcpHttpRouter(() => workflowMcpServer(wf, tasks, opts), calls);
  const http = createServer(async (req, res) => {
    const refuse = (status: number, message: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(jsonText({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
    };
    // DNS rebinding: a foreign Host or Origin is refused (R96-1)
    const addr = http.address();
    const bound = typeof addr === "object" && addr ? addr.port : opts.port;
    const refusal = rebindingRefusal(req.headers, host, bound);
    if (refusal) return refuse(403, refusal);
    try {
      await router.handle(req, res);
    } catch (e) {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(jsonText({
          jsonrpc: "2.0",
          error: { code: -32603, message: (e as Error).message },
          id: null,
        }));
      }
    }
  });
  const shown = host.includes(":") ? `[${host}]` : host;
  await new Promise<void>((resolve, reject) => {
    http.once("error", (e) => {
      // the runtime's "EADDRNOTAVAIL: address not available, listen" names no address (R81-12)
      const where = `${shown}:${opts.port}`;
      reject(
        new ScoutError("mcp_server", `Cannot listen on ${where}: ${errnoReason(e)}`, { cause: e }),
      );
    });
    http.listen(opts.port, host, () => resolve());
  });
  const addr = http.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const shutdown = async (message: string) => {
    await calls.shutdown(message);
    await router.close();
  };
  return { http, url: `http://${shown}:${port}/mcp`, shutdown };
}
