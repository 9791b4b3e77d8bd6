/**
 * Config scopes derived from a server URL's host (Ruby
 * `LLM.get_url_server_tokens` / `get_url_config`): the key of an MCP server,
 * and the `key` and `model` of an LLM backend, may be configured per host.
 *
 * @module
 */

/**
 * Config scope tokens of a URL (Ruby `get_url_server_tokens`): the host's
 * parts (a last part of ≤ 3 chars dropped), their contiguous combinations
 * and the host, each prefixed with `prefix.`.
 *
 * @param url the URL
 * @param prefix scope prefix (`mcp`, `openai_ask`…)
 * @returns scope tokens in Ruby's order (single parts first, the host last)
 *
 * @example
 * ```ts
 * import { urlScopes } from "./url_scopes.ts";
 * urlScopes("https://api.example.com/mcp", "mcp"); // ["mcp.api", "mcp.example", "mcp.api.example", "mcp.api.example.com"]
 * ```
 */
export function urlScopes(url: string, prefix: string): string[] {
  // Ruby's reading, quirks included, so a shared config means the same to both:
  // the scheme is matched case-sensitively, userinfo is not skipped, hosts are
  // not lowercased; Ruby's `split` drops trailing empty parts
  const server = /^(?:https?:\/\/)?([^/:]*)/.exec(url)?.[1] || "NOSERVER";
  const parts = server.split(".");
  while (parts.length && parts[parts.length - 1] === "") parts.pop();
  if (parts.length && parts[parts.length - 1]!.length <= 3) parts.pop();
  const combos: string[] = [];
  for (let l = 1; l <= parts.length; l++) {
    for (let i = 0; i + l <= parts.length; i++) combos.push(parts.slice(i, i + l).join("."));
  }
  return [...new Set([...parts, ...combos, server])].map((t) => `${prefix}.${t}`);
}

/**
 * The scopes of a lookup with a URL (Ruby `get_url_config`): each scope's
 * host tokens, in the order of the scopes, then the scopes themselves; no
 * URL → the scopes alone. Earlier tokens win in `configGet`, so a per-host
 * entry beats a general one. The list returned is shared (frozen).
 *
 * @param url the server URL (undefined: none configured)
 * @param scopes the lookup's scopes
 * @returns the scope tokens
 *
 * @example
 * ```ts
 * import { withUrlScopes } from "./url_scopes.ts";
 * withUrlScopes("http://gpu1:8000", ["ask", "vllm"]); // ["ask.gpu1", "vllm.gpu1", "ask", "vllm"]
 * ```
 */
export function withUrlScopes(
  url: string | undefined,
  scopes: readonly string[],
): readonly string[] {
  if (url === undefined || url === "") return scopes;
  // every ask looks its key and model up this way (each delegated call too):
  // the same few urls and scope lists, so the lists are kept
  const k = `${url}\u0000${scopes.join("\u0000")}`;
  let out = memo.get(k);
  if (out === undefined) {
    if (memo.size >= MEMO_MAX) memo.clear();
    out = Object.freeze([...scopes.flatMap((s) => urlScopes(url, s)), ...scopes]);
    memo.set(k, out);
  }
  return out;
}

const memo = new Map<string, readonly string[]>();
const MEMO_MAX = 64;
