/**
 * What a chat's own `option:` lines may not decide (`inference.md` §2.2,
 * [TS-FIX] R97-1/R97-4): a received chat is data, so
 *
 * - `ssh_command` is never taken from it (a chat line could name any program,
 *   or ssh with a `ProxyCommand`): the line is dropped with one warning naming
 *   file:line; the ssh command comes from `-O`, an endpoint file, the config or
 *   SCOUT_SSH;
 * - `relay` / `server` set by it are used (Ruby parity: users route their own
 *   chats this way) but warned about, naming the line, unless the same value
 *   is also given by `-O`, the endpoint file, the config or the environment:
 *   the line decides where the request, `file:` contents included, goes.
 *
 * @module
 */
import type { OptionLine } from "../chat/written_at.ts";
import { configGet, type ConfigStore } from "../config/store.ts";

const RELAY_KEYS: Record<string, string[]> = { relay: [], server: ["SCOUT_RELAY_SERVER"] };

/** Options a chat line never sets. */
export const NOT_FROM_CHAT: readonly string[] = ["ssh_command"];

function where(at: OptionLine | undefined): string {
  return at ? `${at.file}:${at.line}: ` : "";
}

/**
 * Drops the options a chat may not set (changed in place), warning once per
 * dropped line. With `written` (call options and the chat lines they came
 * from: `-c` chat or agent start chat), only values a chat line set are
 * dropped: an option the user gave (`-O`, another value) stays.
 *
 * @param options a chat's options, or call options (with `written`)
 * @param lines where they were written (the dropped keys are removed)
 * @param warn warning sink
 * @param written call options: drop only what these lines set
 */
export function dropChatOnly(
  options: Record<string, unknown>,
  lines: Record<string, OptionLine> | undefined,
  warn: (message: string) => void,
  written = false,
): void {
  for (const key of NOT_FROM_CHAT) {
    if (options[key] === undefined) continue;
    const at = lines?.[key];
    if (written && (at === undefined || String(at.value) !== String(options[key]))) continue;
    delete options[key];
    if (lines) delete lines[key];
    warn(
      `${where(at)}option "${key}" in a chat is ignored: the ssh command comes from SCOUT_SSH, ` +
        `the config, an endpoint file or -O ${key}=…`,
    );
  }
}

/**
 * The relay settings a chat line set: the chat's own options, and call
 * options whose value a chat line (`-c` chat, agent start chat) wrote.
 *
 * @param chat the chat's options and lines
 * @param call call options and the chat lines they came from
 * @returns the values and their lines
 */
export function chatRelaySettings(
  chat: { options: Record<string, unknown>; lines?: Record<string, OptionLine> },
  call: { options: Record<string, unknown>; lines?: Record<string, OptionLine> },
): { options: Record<string, unknown>; lines: Record<string, OptionLine> } {
  const out: { options: Record<string, unknown>; lines: Record<string, OptionLine> } = {
    options: {},
    lines: {},
  };
  for (const key of Object.keys(RELAY_KEYS)) {
    const at = call.lines?.[key];
    if (key in chat.options) {
      out.options[key] = chat.options[key];
      if (chat.lines?.[key]) out.lines[key] = chat.lines[key];
    } else if (at !== undefined && String(at.value) === String(call.options[key])) {
      out.options[key] = call.options[key];
      out.lines[key] = at;
    }
  }
  return out;
}

/** What else may give the relay settings (the same value there means no warning). */
export interface RelaySources {
  /** The endpoint file's settings. */
  endpoint: Record<string, unknown>;
  /** Config and environment. */
  store: ConfigStore;
  env: Record<string, string | undefined>;
}

/**
 * Warns about a chat's `relay` / `server` line whose value nothing else gives.
 *
 * @param chatOptions the chat's options
 * @param lines where they were written
 * @param src the other sources
 * @param warn warning sink
 */
export function warnChatRelay(
  chatOptions: Record<string, unknown>,
  lines: Record<string, OptionLine> | undefined,
  src: RelaySources,
  warn: (message: string) => void,
): void {
  for (const [key, envNames] of Object.entries(RELAY_KEYS)) {
    const v = chatOptions[key];
    if (v === undefined || v === null || v === false || /^(|false|none|nil)$/i.test(String(v))) {
      continue;
    }
    const value = String(v).trim();
    const configured = [
      src.endpoint[key],
      configGet(src.store, key, ["relay"], { env: envNames, environment: src.env }),
    ].some((x) => x !== undefined && x !== null && String(x).trim() === value);
    if (configured) continue;
    warn(
      `${where(lines?.[key])}option "${key}" of the chat sends this request (file: contents ` +
        `included) to "${value}"; continue only chats you trust`,
    );
  }
}
