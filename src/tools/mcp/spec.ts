/**
 * MCP server specifications from `mcp:` lines (`agents.md` §6.3): which
 * transport, which command or URL, which tools; the Bearer key (under the
 * URL's host scopes, `config/url_scopes.ts`) and the read timeout; and
 * the normalisation of a tool result to text.
 *
 * @module
 */
import { shellWords } from "../../chat/tool_directives.ts";
import { configGet, type ConfigStore } from "../../config/store.ts";
import { withUrlScopes } from "../../config/url_scopes.ts";
import { ScoutError } from "../../errors.ts";
import { redactKeysIn, redactUrl, redactUrlsIn } from "../../util/secrets.ts";

/** A server named by an `mcp:` line. */
export type McpServerSpec =
  | {
    /** Child process speaking MCP on stdin/stdout. */
    kind: "stdio";
    /** Program and arguments. */
    argv: string[];
    /**
     * The command as written, the credentials of urls in it and key-like
     * words masked (`***`, `util/secrets.ts`): for messages, which reach the
     * provider and job files as tool outputs (R115-3).
     */
    label: string;
    /** Tool names to keep (empty = all). */
    names: string[];
  }
  | {
    /** Streamable HTTP (falling back to the older SSE transport). */
    kind: "http";
    /** Server URL. */
    url: string;
    /**
     * The URL with its password and secret parameters masked
     * (`http://bob:***@host/mcp?key=***`): for messages, which reach the
     * provider and job files as tool outputs (R115-3).
     */
    label: string;
    /** Tool names to keep (empty = all). */
    names: string[];
  };

/**
 * Parses the tokens of an `mcp:` line: `stdio '<command with args>' [tool…]`
 * or `<url> [tool…]`.
 *
 * @param tokens the line's shell words
 * @returns the server spec
 * @throws ScoutError `invalid_input` for a line without a server
 *
 * @example
 * ```ts
 * import { parseMcpLine } from "./spec.ts";
 * parseMcpLine(["stdio", "my-server --flag", "echo"]).kind; // "stdio"
 * ```
 */
export function parseMcpLine(tokens: readonly string[]): McpServerSpec {
  const [first, ...rest] = tokens;
  if (!first) {
    throw new ScoutError("invalid_input", "An mcp: line needs a URL or stdio '<command>'");
  }
  if (first === "stdio") {
    const [command, ...names] = rest;
    const argv = command ? shellWords(command) : [];
    if (!command || argv.length === 0) {
      throw new ScoutError(
        "invalid_input",
        "An mcp: stdio line needs a command (quote it with its arguments)",
      );
    }
    return { kind: "stdio", argv, label: redactKeysIn(redactUrlsIn(command)), names };
  }
  if (!/^https?:\/\//i.test(first)) {
    throw new ScoutError(
      "invalid_input",
      `Cannot read the mcp: line "${
        redactUrlsIn(tokens.join(" "))
      }": expected an http(s) URL or stdio '<command>'`,
    );
  }
  return { kind: "http", url: first, label: redactUrl(first), names: rest };
}

/**
 * The key configured for an MCP URL (`key` under the URL's `mcp.*` scopes,
 * then `mcp`), or undefined when none is (§7.16: no header then).
 *
 * @param store config store
 * @param url server URL
 * @param env environment for `env:` values
 * @returns the key or undefined
 */
export function mcpKey(
  store: ConfigStore | undefined,
  url: string,
  env?: Record<string, string | undefined>,
): string | undefined {
  if (!store) return undefined;
  const v = configGet(
    store,
    "key",
    withUrlScopes(url, ["mcp"]),
    env ? { environment: env } : {},
  );
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * The MCP read timeout in milliseconds (config `timeout` in scopes `mcp`,
 * `tools`, seconds like Ruby's `read_timeout`), or undefined.
 *
 * @param store config store
 * @param env environment for `env:` values
 * @returns milliseconds or undefined
 */
export function mcpTimeoutMs(
  store: ConfigStore | undefined,
  env?: Record<string, string | undefined>,
): number | undefined {
  if (!store) return undefined;
  const v = configGet(store, "timeout", ["mcp", "tools"], env ? { environment: env } : {});
  const n = typeof v === "string" ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n * 1000 : undefined;
}

/**
 * Ruby's result normalisation: `content` if present; a one-element list → its
 * element; again `content`; then `text`. Anything else is returned as is (the
 * dispatcher JSON-encodes non-strings).
 *
 * @param res a `tools/call` result
 * @returns the normalised value
 *
 * @example
 * ```ts
 * import { normalizeMcpResult } from "./spec.ts";
 * normalizeMcpResult({ content: [{ type: "text", text: "hi" }] }); // "hi"
 * ```
 */
export function normalizeMcpResult(res: unknown): unknown {
  const content = (v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) &&
      (v as Record<string, unknown>).content
      ? (v as Record<string, unknown>).content
      : v;
  let out = content(res);
  if (Array.isArray(out) && out.length === 1) out = out[0];
  out = content(out);
  if (
    out !== null && typeof out === "object" && !Array.isArray(out) &&
    (out as Record<string, unknown>).text !== undefined
  ) out = (out as Record<string, unknown>).text;
  return out;
}
