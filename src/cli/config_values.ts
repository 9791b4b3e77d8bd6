/**
 * What `config get`, `set` and `list` share: where the config file is, and
 * how a value is shown (secrets hidden, urls without their credentials).
 *
 * @module
 */
import { join } from "node:path";
import { scoutHome } from "../config/home.ts";
import { isSecretName, looksLikeKey, redactUrlsIn } from "../util/secrets.ts";
import type { Io } from "./io.ts";

/** Shown instead of a secret value. */
export const HIDDEN = "[hidden]";

/**
 * Whether a config key (or its value) is a secret that must never be printed.
 *
 * @param key config key
 * @param value raw value
 * @returns true for keys, tokens, passwords and `sk-…` values (`util/secrets.ts` decides)
 */
export function isSecret(key: string, value: string | null = ""): boolean {
  return isSecretName(key) || looksLikeKey(value ?? "");
}

/**
 * A value as printed: {@link HIDDEN} for a secret, else its urls without their credentials. */
export function printable(key: string, value: string): string {
  return isSecret(key, value) ? HIDDEN : redactUrlsIn(value);
}

/**
 * The user's config file, `$SCOUT_HOME/etc/config`.
 *
 * @param io the environment it is found from
 * @returns its path
 */
export function configFile(io: Io): string {
  return join(scoutHome(io.env), "etc", "config");
}
