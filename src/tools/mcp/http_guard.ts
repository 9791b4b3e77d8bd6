/**
 * DNS-rebinding protection of the `workflow mcp --http` server (R96-1; MCP
 * transport spec: servers MUST validate `Origin`). A web page of
 * `attacker.example`, once its name resolves to 127.0.0.1, reaches the
 * server with `Host: attacker.example:PORT` and its own `Origin`: both are
 * refused. Allowed: `Host` naming 127.0.0.1, localhost, [::1] or the bound
 * address, with the bound port; an `Origin` absent (non-browser clients)
 * or naming one of those hosts (any port: a local page). Bound to a
 * wildcard address (0.0.0.0, ::), any IP literal is allowed as well: a
 * rebinding attack needs a DNS name.
 *
 * @module
 */
import { isIP } from "node:net";

const LOCAL = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** `[::1]` for an IPv6 address, else as is, lowercased. */
function bracketed(host: string): string {
  const h = host.toLowerCase();
  return isIP(h) === 6 ? `[${h}]` : h;
}

function hostAllowed(hostname: string, bound: string): boolean {
  const h = hostname.toLowerCase();
  if (LOCAL.has(h) || h === bracketed(bound)) return true;
  const wildcard = bound === "0.0.0.0" || bound === "::";
  return wildcard && isIP(h.replace(/^\[(.*)\]$/, "$1")) !== 0;
}

/**
 * Why a request must be refused, or null when its `Host` and `Origin` are
 * acceptable.
 *
 * @param headers the request's `host` and `origin` headers
 * @param bound the address the server is bound to
 * @param port the port it listens on
 * @returns the reason, or null
 */
export function rebindingRefusal(
  headers: { host?: string | undefined; origin?: string | undefined },
  bound: string,
  port: number,
): string | null {
  let host: URL;
  try {
    host = new URL(`http://${headers.host ?? ""}`);
  } catch {
    return `Invalid Host header: ${headers.host ?? "(none)"}`;
  }
  const hostPort = host.port === "" ? 80 : Number(host.port);
  if (!hostAllowed(host.hostname, bound) || hostPort !== port) {
    return `Invalid Host header: ${headers.host}`;
  }
  if (headers.origin === undefined) return null;
  try {
    const origin = new URL(headers.origin);
    if (/^https?:$/.test(origin.protocol) && hostAllowed(origin.hostname, bound)) return null;
  } catch { /* refused below */ }
  return `Invalid Origin header: ${headers.origin}`;
}
