/**
 * This process as the holder of a lock or the writer of a temp file:
 * `<pid>@<host>`, the text of the file lock (`file_lock.ts`), of the
 * inference cache's locks and holder files (`llm/cache_holder.ts`) and the
 * middle of temp names (`dead_temps.ts`) — one builder, so that what one
 * writes another recognises as this process. The host is `os.hostname()`,
 * whole; a temp name cuts it to a byte budget (its name must fit NAME_MAX),
 * which on Linux (HOST_NAME_MAX = 64) cuts nothing. Lock texts are read by
 * `stale_takeover.ts`'s `holderOf`.
 *
 * @module
 */
import { hostname } from "node:os";
import { clipUtf8 } from "./name_bytes.ts";

const hosts = new Map<number, string>();

/**
 * This host's name, cut to at most `maxBytes` UTF-8 bytes (memoised).
 *
 * @param maxBytes the byte budget (default: none)
 * @returns the host name as holders here write it
 */
export function holderHost(maxBytes = Infinity): string {
  const known = hosts.get(maxBytes);
  if (known !== undefined) return known;
  const h = clipUtf8(hostname(), maxBytes);
  hosts.set(maxBytes, h);
  return h;
}

/**
 * This process as a holder: `<pid>@<host>` ({@link holderHost}).
 *
 * @param maxHostBytes the host's byte budget (default: none, the whole name)
 * @returns the holder's text
 *
 * @example
 * ```ts
 * import { thisHolder } from "./holder.ts";
 * thisHolder(); // e.g. "4242@node7"
 * ```
 */
export function thisHolder(maxHostBytes = Infinity): string {
  return `${process.pid}@${holderHost(maxHostBytes)}`;
}
