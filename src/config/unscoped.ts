/**
 * Entries without a scope: older scout-ai read them as global, the Ruby
 * matching rule (`configGet`) reads them only from a lookup without scopes,
 * which no setting's lookup is. The rule is kept; a scoped lookup that finds
 * nothing while such an entry of `etc/config` exists says so once per
 * entry, with the command that gives it a scope.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { isSecretName, looksLikeKey } from "../util/secrets.ts";
import { shellQuote } from "../util/shell_words.ts";
import { warnOnce } from "../util/warn_once.ts";
import { scoutHome } from "./home.ts";

// the shapes of store.ts's ConfigEntry and ConfigStore (no import back: store.ts calls this module)
interface Entry {
  key: string;
  value: string | null;
  tokens: string[];
  source?: string;
}
interface Store {
  entries: readonly Entry[];
  files?: readonly string[];
}

/**
 * The scope scout-ai's own lookups of `key` name first (`config set`'s help
 * lists them).
 *
 * @param key config key
 * @returns e.g. `ask` for `model`, `prompt` for `epoch_size`
 */
export function suggestedScope(key: string): string {
  if (/^epoch_|^(full|max)_tool_(calls|outputs|chars)$/.test(key)) return "prompt";
  if (key === "max_content_length") return "tools";
  if (key === "timeout") return "mcp";
  if (key === "allow_roles") return "chat";
  return "ask";
}

/** The file and line of an entry's `file:line` source, when it has one. */
function fileAndLine(source: string | undefined): { file: string; line: string } | undefined {
  const m = source === undefined ? null : /^(.*):(\d+)$/.exec(source);
  return m ? { file: m[1]!, line: m[2]! } : undefined;
}

/** The last entry of `key` without a scope read from one of the store's config files. */
function unscopedFileEntry(store: Store, key: string): Entry | undefined {
  const files = new Set(store.files ?? []);
  return store.entries.findLast((e) =>
    e.key === key && e.tokens.length === 0 && files.has(fileAndLine(e.source)?.file ?? "")
  );
}

// the lookup's scopes without the server's host scopes (`ask.127.0.0.1`…), which are many
function scopeList(tokens: readonly string[]): string {
  const plain = tokens.filter((t) => !t.includes("."));
  if (plain.length === 0 || plain.length === tokens.length) return tokens.join(", ");
  return `${plain.join(", ")} (and the server's host scopes)`;
}

/**
 * Warns (once per entry and warning sink) when a lookup of `key` with `tokens`
 * found no entry while the config files hold one of the key without a scope:
 * the entry older scout-ai used there, which no lookup reads now. Call it
 * only for a lookup that matched nothing.
 *
 * @param store the store looked in
 * @param key the key looked up
 * @param tokens the lookup's scopes (none: nothing to say, such a lookup reads the entry)
 * @param environment where `SCOUT_HOME` is read (the file `config set` writes)
 */
export function warnUnreadEntry(
  store: Store,
  key: string,
  tokens: readonly string[],
  environment: Record<string, string | undefined>,
): void {
  if (tokens.length === 0) return;
  const entry = unscopedFileEntry(store, key);
  const at = fileAndLine(entry?.source);
  if (entry === undefined || at === undefined) return;
  const scope = tokens.includes(suggestedScope(key)) ? suggestedScope(key) : tokens[0]!;
  const secret = isSecretName(key) || looksLikeKey(entry.value ?? "");
  const value = secret ? "VALUE" : entry.value ?? "nil";
  const own = resolve(at.file) === resolve(join(scoutHome(environment), "etc", "config"));
  // a command to paste: each word shell-quoted (a url's `&`, a `$`)
  const [k, v, sc] = [key, value, scope].map(shellQuote);
  const fix = own
    ? `"scout-ai config set ${k} ${v} ${sc} && scout-ai config unset ${k}"`
    : `add the scope to that line: "${key} ${value} ${scope}"`;
  warnOnce(
    `${entry.source} unscoped`,
    `${entry.source}: the entry "${key}" has no scope, so it is not used: ` +
      `"${key}" is looked up with the scopes ${scopeList(tokens)}, and an entry without a ` +
      `scope is read only by a lookup without scopes (the Ruby Scout's rule; older scout-ai ` +
      `read it everywhere). To use it, give it a scope: ${fix}`,
  );
}
