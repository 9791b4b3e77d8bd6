/**
 * Why a connection to a provider failed, in one wording for every runtime:
 * Deno's fetch throws `fetch failed` with the reason on its cause (`…tcp
 * connect error: Connection refused (os error 111)`), Bun's throws
 * `ECONNREFUSED: Unable to connect. Is the computer able to access the url?`
 * with a `code`, so the binary and the source said different things, and the
 * source said no reason at all.
 *
 * @module
 */

/** The reasons told apart: a `code` or a message that shows each. */
const REASONS: { codes: string[]; pattern: RegExp; text: (address: string) => string }[] = [
  {
    codes: ["ECONNREFUSED", "ConnectionRefused"],
    pattern: /connection refused/i,
    text: (a) => `connection refused${a === "" ? "" : ` by ${a}`}`,
  },
  {
    codes: ["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "DNSException"],
    pattern: /dns error|failed to lookup address|getaddrinfo|name or service not known/i,
    text: (a) => a === "" ? "host not found" : `host "${a.replace(/:\d+$/, "")}" not found`,
  },
  {
    // Bun's says `EMFILE: Was there a typo in the url or port?` (R119-5)
    codes: ["EMFILE"],
    pattern: /too many open files \(os error 24\)/i,
    text: () => "too many open files (the process's limit, ulimit -n)",
  },
  {
    codes: ["ENFILE"],
    pattern: /too many open files in system/i,
    text: () => "too many open files in the system",
  },
  {
    codes: ["ECONNRESET", "ConnectionReset"],
    pattern: /connection reset/i,
    text: (a) => `connection reset${a === "" ? "" : ` by ${a}`}`,
  },
];

/** `host:port` of a url (the scheme's port when none is written), or "" when it cannot be read. */
function hostPort(url: string | undefined): string {
  if (url === undefined) return "";
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === "https:" ? "443" : u.protocol === "http:" ? "80" : "");
    return port === "" ? u.hostname : `${u.hostname}:${port}`;
  } catch {
    return "";
  }
}

/**
 * The reason a request failed to connect, when the error or one of its
 * causes shows a refused or reset connection, an unknown host, or no file
 * descriptor left for a socket.
 *
 * @param cause what the request threw
 * @param url the address it went to, for the `host:port` the reason names
 * @returns `connection refused by 127.0.0.1:8080`…, or null when not told apart
 *
 * @example
 * ```ts
 * import { networkReason } from "./network_reason.ts";
 * const e = new TypeError("fetch failed", { cause: new Error("… Connection refused (os error 111)") });
 * networkReason(e, "http://127.0.0.1:8080/v1"); // "connection refused by 127.0.0.1:8080"
 * ```
 */
export function networkReason(cause: unknown, url?: string): string | null {
  const seen = new Set<unknown>();
  for (
    let e = cause;
    e !== null && typeof e === "object" && !seen.has(e);
    e = (e as { cause?: unknown }).cause
  ) {
    seen.add(e);
    const { code, message } = e as { code?: unknown; message?: unknown };
    for (const r of REASONS) {
      if (
        (typeof code === "string" && r.codes.includes(code)) ||
        (typeof message === "string" && r.pattern.test(message))
      ) return r.text(hostPort(url));
    }
    if (seen.size > 8) break;
  }
  return null;
}
