/**
 * MCP in scout-ai (`agents.md` §6.3, `workflow.md` §6.5): the client side
 * (`mcp:` lines → tools, one session per server per run) and serving a
 * workflow's tasks as an MCP server.
 *
 * @module
 */
export * from "./spec.ts";
export * from "./session.ts";
export * from "./resolver.ts";
export * from "./serve.ts";
