/**
 * MCP in scout-ai (`agents.md` §6.3, `workflow.md` §6.5): the client side
 * (`mcp:` lines → tools, one session per server per run) and serving a
 * workflow's tasks as an MCP server. The folder's index, internal: not an
 * entry of the package (`deno.json` exports `.` and `./cli`; the root
 * `mod.ts` re-exports only `spec.ts`, as the SDK's types do not resolve in
 * `deno doc`). Chats reach sessions through `mcp:` lines
 * (`workflowToolResolver`), users the server through `scout-ai workflow mcp`.
 *
 * @module
 */
export * from "./spec.ts";
export * from "./session.ts";
export * from "./resolver.ts";
export * from "./serve.ts";
