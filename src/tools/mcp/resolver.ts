/**
 * `mcp:` lines → tool entries (`agents.md` §6.3): one {@link McpSession} per
 * server per run, each server tool a function tool with its `inputSchema`
 * (only the named ones when names are given; a name the server lacks is an
 * error, `chat.md` D21), results normalised as Ruby
 * does, `isError` kept as an error output ([TS-FIX]), failures as error
 * outputs naming the server. A server whose tools cannot be listed is
 * reported once through `warn` and contributes no tools; the run goes on.
 * Each line's tools are listed once per run: a server's
 * `notifications/tools/list_changed` is not followed (R96-8).
 *
 * @module
 */
import type { ConfigStore } from "../../config/store.ts";
import { isScoutError, ScoutError } from "../../errors.ts";
import { providerToolAliases } from "../names.ts";
import type { ToolEntry } from "../types.ts";
import { toolOutput } from "../types.ts";
import { McpSession, type McpToolInfo } from "./session.ts";
import { mcpKey, mcpTimeoutMs, normalizeMcpResult, parseMcpLine } from "./spec.ts";
import type { McpServerSpec } from "./spec.ts";

/** Options of {@link mcpToolResolver}. */
export interface McpResolverOptions {
  /** Environment of stdio children and of config `env:` values. */
  env?: Record<string, string | undefined>;
  /** Working directory of stdio children. */
  cwd?: string;
  /** Config store (Bearer keys, `timeout`). */
  config?: ConfigStore;
  /** Where unlistable servers are reported (once each). */
  warn?: (message: string) => void;
  /** HTTP client (tests). */
  fetch?: typeof fetch;
}

/** The MCP part of a tool resolver: entries for `mcp:` lines and the sessions' end. */
export interface McpToolResolver {
  /** `mcp:` tokens → tool entries; `signal` aborts starting the server. */
  mcpTools(tokens: string[], signal?: AbortSignal): Promise<ToolEntry[]>;
  /** Closes every session of the run (ends stdio children). */
  close(): Promise<void>;
  /** The sessions opened so far, by server (tests, diagnostics). */
  sessions: Map<string, McpSession>;
}

function serverKey(spec: McpServerSpec): string {
  return spec.kind === "stdio" ? `stdio ${JSON.stringify(spec.argv)}` : `http ${spec.url}`;
}

function textOf(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Server tool names shown in an error: the first 20, then how many in all. */
function shownNames(tools: readonly McpToolInfo[]): string {
  const names = tools.map((t) => t.name);
  if (names.length === 0) return "it lists none";
  const head = names.slice(0, 20).join(", ");
  return `its tools: ${head}${names.length > 20 ? `, … (${names.length} in all)` : ""}`;
}

/**
 * The tools an `mcp:` line names, in the server's order. A name is a tool's
 * own name or, when no tool has that name, the alias the tool is offered
 * under (`ns_dot` for `ns.dot`, `names.ts`): the alias stderr and the chat's
 * calls show is what a user copies onto the line (R115-4). A name the
 * server lacks is an error (`chat.md` D21: Ruby stored `undefined`); one the
 * server listed with an invalid definition was warned about and is skipped.
 */
function namedTools(
  session: McpSession,
  tools: readonly McpToolInfo[],
  names: readonly string[],
  invalid: ReadonlySet<string>,
): McpToolInfo[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const byAlias = new Map<string, McpToolInfo>();
  for (const [real, alias] of providerToolAliases([...byName.keys()])) {
    byAlias.set(alias, byName.get(real)!);
  }
  const missing = names.filter((n) => !byName.has(n) && !byAlias.has(n) && !invalid.has(n));
  if (missing.length > 0) {
    const label = session.spec.label;
    const what = missing.map((n) => `"${n}"`).join(", ");
    throw new ScoutError(
      "tool_not_found",
      `MCP server "${label}" has no tool ${what} (${shownNames(tools)})`,
      { server: label },
    );
  }
  const wanted = new Set(names.map((n) => byName.get(n) ?? byAlias.get(n)));
  return tools.filter((t) => wanted.has(t));
}

/**
 * Tool entries of one session.
 *
 * @param session the session
 * @param names tools to keep (empty = all)
 * @param signal aborts starting and listing
 * @param warn reports a wanted tool the server listed invalidly (it is skipped)
 * @returns the entries
 * @throws ScoutError `mcp_server` when the tools cannot be listed;
 *   `tool_not_found` for a name the server lacks
 */
export async function mcpSessionTools(
  session: McpSession,
  names: readonly string[] = [],
  signal?: AbortSignal,
  warn?: (message: string) => void,
): Promise<ToolEntry[]> {
  const invalid = new Set<string>();
  const tools = await session.listTools(signal, ({ name, problem }) => {
    invalid.add(name);
    if (names.length && !names.includes(name)) return;
    warn?.(
      `MCP server "${session.spec.label}": tool "${name}" skipped, its definition is invalid (${problem})`,
    );
  }, warn);
  const keep = names.length ? namedTools(session, tools, names, invalid) : tools;
  return keep.map((t) => ({
    definition: {
      type: "function",
      function: { name: t.name, description: t.description ?? "", parameters: t.inputSchema },
    },
    // The server validates its own arguments.
    validate: () => [],
    impl: async (name, args, ctx) => {
      const res = await session.callTool(name, args, ctx.signal);
      const value = normalizeMcpResult(res);
      if (res.isError === true) {
        return toolOutput({
          content: `MCP server "${session.spec.label}": tool "${name}" failed: ${textOf(value)}`,
          error: "error",
        });
      }
      return value;
    },
  }));
}

/**
 * A resolver for `mcp:` lines that keeps one session per server for the run.
 *
 * @param opts env, cwd, config, warn
 * @returns the resolver; call `close()` when the run ends
 */
export function mcpToolResolver(opts: McpResolverOptions = {}): McpToolResolver {
  const sessions = new Map<string, McpSession>();
  const warned = new Set<string>();
  const said = new Set<string>();
  const warn = (m: string) => {
    if (said.has(m)) return;
    said.add(m);
    (opts.warn ?? ((w: string) => console.error(w)))(m);
  };
  return {
    sessions,
    async mcpTools(tokens, signal) {
      const spec = parseMcpLine(tokens);
      const key = serverKey(spec);
      let session = sessions.get(key);
      if (!session) {
        const http = spec.kind === "http" ? mcpKey(opts.config, spec.url, opts.env) : undefined;
        const timeoutMs = mcpTimeoutMs(opts.config, opts.env);
        session = new McpSession(spec, {
          ...(opts.env ? { env: opts.env } : {}),
          ...(opts.cwd ? { cwd: opts.cwd } : {}),
          ...(http ? { key: http } : {}),
          ...(timeoutMs ? { timeoutMs } : {}),
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        });
        sessions.set(key, session);
      }
      try {
        return await mcpSessionTools(session, spec.names, signal, warn);
      } catch (e) {
        if (signal?.aborted) throw e; // the run was interrupted: no warning
        if (isScoutError(e, "tool_not_found")) throw e; // the line is wrong, not the server
        if (!warned.has(key)) {
          warned.add(key);
          (opts.warn ?? ((m: string) => console.error(m)))(
            `${(e as Error).message} (its tools are not available)`,
          );
        }
        return [];
      }
    },
    async close() {
      const all = [...sessions.values()];
      await Promise.all(all.map((s) => s.close()));
    },
  };
}
