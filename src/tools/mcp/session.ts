/**
 * One MCP client session per server per run (`agents.md` §6.3): connected
 * lazily on first use, listing the server's tools and calling them, closed
 * once at the end of the run (a stdio child is ended with it). A server that
 * dies is reconnected on the next use; over Streamable HTTP a reply stream
 * cut before its answer fails the pending requests at once (R96-5). The tool
 * list is read once: `notifications/tools/list_changed` is not followed
 * (R96-8). Errors name the server.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";
import { ScoutError } from "../../errors.ts";
import { redactSecretsIn } from "../../util/secrets.ts";
import { connectHttp, endHttpSession } from "./http_client.ts";
import type { StreamWatch } from "./stream_watch.ts";
import type { McpServerSpec } from "./spec.ts";
import { MCP_MAX_MESSAGE_BYTES, ProcessTransport } from "./process_transport.ts";

/** How a session reaches its server. */
export interface McpSessionOptions {
  /**
   * Environment given to a stdio child, merged over the SDK's safe defaults
   * (HOME, LOGNAME, PATH, SHELL, TERM, USER of this process); the given values win.
   */
  env?: Record<string, string | undefined>;
  /** Working directory of a stdio child. */
  cwd?: string;
  /** Bearer key for an HTTP server (sent only when set, §7.16). */
  key?: string;
  /** Timeout of starting, listing and each tool call in ms (default: the SDK's 60 s). */
  timeoutMs?: number;
  /** HTTP client (tests). */
  fetch?: typeof fetch;
}

/** A tool as the server lists it. */
export interface McpToolInfo {
  /** Tool name. */
  name: string;
  /** Description. */
  description?: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
}

/** A tool the server listed with an invalid definition (it is skipped). */
export interface McpInvalidTool {
  /** Its name, or `?` when it has none. */
  name: string;
  /** What is wrong, one line. */
  problem: string;
}

// A `tools/list` page read leniently: one bad tool must not hide the others (R76-7).
const ToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

function invalidTool(raw: unknown, error: z.ZodError): McpInvalidTool {
  const name = (raw as { name?: unknown } | null)?.name;
  const problem = error.issues.map((i) => `${i.path.join(".") || "tool"}: ${i.message}`)
    .join("; ");
  return { name: typeof name === "string" ? name : "?", problem };
}

/** Pages of `tools/list` read at most: a cursor that never ends must not hang the run (R96-4). */
export const MCP_MAX_LIST_PAGES = 100;

/** A `tools/call` result as the SDK returns it. */
export type McpCallResult = Record<string, unknown>;

/**
 * A stdio child's environment: `env` (unset values dropped) over the SDK's
 * safe defaults, as its `StdioClientTransport` did — a caller passing only
 * `{FOO}` must not start a server without PATH or HOME (R78-3).
 */
function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = getDefaultEnvironment();
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** An open (or openable) MCP client session; a class because its lifecycle is real. */
export class McpSession {
  /** The server. */
  readonly spec: McpServerSpec;
  private readonly opts: McpSessionOptions;
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  /** The stdio transport being started or in use. */
  private transport: ProcessTransport | null = null;
  /** The stdio transport of each client (to tell why its connection closed). */
  private readonly transports = new WeakMap<Client, ProcessTransport>();
  /** Requests waiting for an answer, per client. */
  private readonly pending = new WeakMap<Client, number>();
  /** Why a client's connection was ended while requests were pending (R96-5). */
  private readonly lost = new WeakMap<Client, Error>();
  private closed = false;
  /**
   * Set when a call was aborted: the server may still be running it, so the
   * session's close stops it at once instead of waiting for it (R105-7).
   */
  private abandoned = false;
  /** Pid of the current stdio child (null for HTTP or before start). */
  pid: number | null = null;

  /**
   * Creates a session; nothing starts until the first use.
   *
   * @param spec the server
   * @param opts env, cwd, key, timeout
   */
  constructor(spec: McpServerSpec, opts: McpSessionOptions = {}) {
    this.spec = spec;
    this.opts = opts;
  }

  /**
   * An `mcp_server` error naming the server; urls in the cause's message
   * (a fetch error names the url it asked) lose their credentials (R115-3),
   * and a server's echo of the request's headers the configured key (R146).
   */
  private fail(what: string, e: unknown): ScoutError {
    const msg = redactSecretsIn(e instanceof Error ? e.message : String(e), [this.opts.key]);
    return new ScoutError("mcp_server", `MCP server "${this.spec.label}": ${what}: ${msg}`, {
      server: this.spec.label,
      cause: e,
    });
  }

  /** Starts (stdio) or reaches (HTTP, falling back to SSE) the server. */
  private async open(signal?: AbortSignal): Promise<Client> {
    const client = new Client({ name: "scout-ai", version: "0.1.0" });
    const reset = () => {
      if (this.client === client) this.client = null;
    };
    client.onclose = reset;
    const spec = this.spec;
    if (spec.kind === "stdio") {
      const transport = new ProcessTransport({
        command: spec.argv[0]!,
        args: spec.argv.slice(1),
        env: childEnv(this.opts.env ?? process.env),
        ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
      });
      this.transport = transport;
      this.transports.set(client, transport);
      try {
        // bounded by the timeout and the run's signal; a failed start ends the child now
        await client.connect(transport, this.requestOptions(signal));
      } catch (e) {
        await transport.terminate();
        // the SDK only says "Connection closed" (R88-1)
        throw transport.failure ? new Error(transport.failure, { cause: e }) : e;
      }
      this.pid = transport.pid;
      return client;
    }
    return await connectHttp({
      client,
      url: spec.url,
      key: this.opts.key,
      fetch: this.opts.fetch,
      options: this.requestOptions(signal),
      legacy: () => {
        const legacy = new Client({ name: "scout-ai", version: "0.1.0" });
        legacy.onclose = () => {
          if (this.client === legacy) this.client = null;
        };
        return legacy;
      },
      onError: (e, watch) => this.streamLost(client, e, watch),
    });
  }

  /**
   * The Streamable HTTP transport reports a reply stream that broke (the
   * server died mid-call) only through `onerror`, and leaves the request to
   * its timeout: while a request is pending, that ends the connection now, so
   * pending requests fail at once ({@link McpSession.pendingRequest}: "the
   * connection to the server was lost") and the next use connects again.
   * Only when the SDK will not resume (R98-3): a POST reply stream without an
   * event id broken before its answer (`watch`), or the SDK giving up
   * reconnecting; a broken GET stream or a resumable reply stream it
   * reconnects itself ("Failed to reconnect SSE stream" is one attempt of
   * several).
   */
  private streamLost(client: Client, e: Error, watch: StreamWatch): void {
    const broken = /^SSE stream disconnected/.test(e.message);
    if (
      broken ? !watch.takeDrop() : !/^(Failed to reconnect:|Maximum reconnection)/.test(e.message)
    ) {
      return;
    }
    if (!this.pending.get(client) || this.lost.has(client)) return;
    this.lost.set(client, e);
    if (this.client === client) this.client = null;
    void client.close().catch(() => {});
  }

  /** Runs a request of `client`, counted as pending; a lost stream's error says so. */
  private async pendingRequest<T>(client: Client, what: string, run: () => Promise<T>): Promise<T> {
    this.pending.set(client, (this.pending.get(client) ?? 0) + 1);
    try {
      return await run();
    } catch (e) {
      const lost = this.lost.get(client);
      if (!lost) throw e;
      throw new ScoutError(
        "mcp_server",
        `MCP server "${this.spec.label}": ${what} failed: the connection to the server was lost (${
          redactSecretsIn(lost.message, [this.opts.key])
        })`,
        { server: this.spec.label, cause: e },
      );
    } finally {
      this.pending.set(client, (this.pending.get(client) ?? 1) - 1);
    }
  }

  /**
   * Request options: the configured timeout and the abort signal; with
   * `progress`, an `onprogress` so the SDK sends a `progressToken` and each
   * progress the server reports restarts the timeout (R96-9: without one,
   * `resetTimeoutOnProgress` never applied).
   */
  private requestOptions(signal?: AbortSignal, progress = false): RequestOptions {
    return {
      ...(this.opts.timeoutMs
        ? { timeout: this.opts.timeoutMs, resetTimeoutOnProgress: true }
        : {}),
      ...(signal ? { signal } : {}),
      ...(progress ? { onprogress: () => {}, resetTimeoutOnProgress: true } : {}),
    };
  }

  /**
   * The connected client, starting the server on first use (and after it died).
   *
   * @param signal aborts the start (the child is ended)
   * @returns the client
   * @throws ScoutError `mcp_server` when the server cannot be started or reached
   *   in time; the signal's reason when it aborted
   */
  async connect(signal?: AbortSignal): Promise<Client> {
    if (this.closed) throw this.fail("cannot connect", new Error("the session is closed"));
    if (this.client) return this.client;
    if (!this.connecting) {
      this.connecting = this.open(signal).then((c) => {
        this.client = c;
        return c;
      }).finally(() => {
        this.connecting = null;
      });
    }
    try {
      return await this.connecting;
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      throw this.fail("cannot start or connect", e);
    }
  }

  /**
   * Lists the server's tools (all pages, at most {@link MCP_MAX_LIST_PAGES});
   * a tool with an invalid definition is skipped and given to `onInvalid`; a
   * listing that does not end (a cursor seen before, the page cap) stops
   * with the tools got so far and one message to `onStop` (R96-4).
   *
   * @param signal aborts starting and listing
   * @param onInvalid receives each skipped tool
   * @param onStop receives why a listing that did not end was stopped
   * @returns the valid tools (a name listed again is kept once, the first)
   * @throws ScoutError `mcp_server`
   */
  async listTools(
    signal?: AbortSignal,
    onInvalid?: (tool: McpInvalidTool) => void,
    onStop?: (message: string) => void,
  ): Promise<McpToolInfo[]> {
    const client = await this.connect(signal);
    const out = new Map<string, McpToolInfo>();
    const seen = new Set<string>();
    try {
      let cursor: string | undefined;
      for (let pages = 0;; pages++) {
        if (pages === MCP_MAX_LIST_PAGES || (cursor !== undefined && seen.has(cursor))) {
          const why = pages === MCP_MAX_LIST_PAGES
            ? `still not ended after ${pages} pages`
            : `its cursor ${JSON.stringify(cursor)} came again`;
          onStop?.(
            `MCP server "${this.spec.label}": tools/list stopped, ${why}; the ${out.size} tools listed so far are used`,
          );
          break;
        }
        if (cursor !== undefined) seen.add(cursor);
        const params = cursor ? { cursor } : {};
        const page = await this.pendingRequest<z.infer<typeof ToolsPage>>(
          client,
          "tools/list",
          () =>
            client.request(
              { method: "tools/list", params },
              ToolsPage,
              this.requestOptions(signal),
            ),
        );
        for (const raw of page.tools) {
          const parsed = ToolSchema.safeParse(raw);
          if (!parsed.success) {
            onInvalid?.(invalidTool(raw, parsed.error));
            continue;
          }
          const t = parsed.data;
          if (out.has(t.name)) continue;
          out.set(t.name, {
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
            inputSchema: t.inputSchema as Record<string, unknown>,
          });
        }
        cursor = page.nextCursor;
        if (!cursor) break;
      }
    } catch (e) {
      throw e instanceof ScoutError ? e : this.fail("cannot list tools", e);
    }
    return [...out.values()];
  }

  /**
   * Calls a tool.
   *
   * @param name tool name
   * @param args arguments
   * @param signal aborts the call
   * @returns the raw result
   * @throws ScoutError `mcp_server` when the call fails (not for `isError` results)
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<McpCallResult> {
    const client = await this.connect(signal);
    try {
      return await this.pendingRequest(client, `call of "${name}"`, () =>
        client.callTool(
          { name, arguments: args },
          undefined,
          this.requestOptions(signal, true),
        )) as McpCallResult;
    } catch (e) {
      if (signal?.aborted) this.abandoned = true;
      if (signal?.aborted || e instanceof ScoutError) throw e;
      if (this.transports.get(client)?.overflowed) {
        // the SDK only says "Connection closed" (R76-8)
        const mib = MCP_MAX_MESSAGE_BYTES / 1024 / 1024;
        throw new ScoutError(
          "mcp_server",
          `MCP server "${this.spec.label}": the reply of "${name}" exceeded the ${mib} MiB MCP message limit (the server was stopped)`,
          { server: this.spec.label, cause: e },
        );
      }
      throw this.fail(`call of "${name}" failed`, e);
    }
  }

  /**
   * Closes the session (ends a stdio child, also one still starting); later
   * uses fail. A child still starting, or busy with a call that was aborted,
   * is ended at once (SIGTERM to its group); an idle one gets its stdin
   * closed first, to stop by itself. An HTTP server that gave a session id
   * is told the session ends (a `DELETE`, waited for at most 2 s;
   * R115-6). Never throws.
   */
  async close(): Promise<void> {
    this.closed = true;
    const pending = this.connecting;
    const busy = this.abandoned ||
      (this.client !== null && (this.pending.get(this.client) ?? 0) > 0);
    if (pending || busy) await this.transport?.terminate();
    const client = this.client ?? (pending ? await pending.catch(() => null) : null);
    this.client = null;
    if (client) await endHttpSession(client);
    if (client) await client.close().catch(() => {});
    await this.transport?.close();
  }
}
