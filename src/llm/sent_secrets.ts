/**
 * The secrets an ask sends to its provider, so that whatever the provider
 * answers with them echoed back (an error body quoting the request's
 * `Authorization` or `x-api-key`, R146) is shown, recorded and relayed
 * masked: the key (from `-O key=`, the endpoint file, the config or the
 * environment, whichever won) and the backend's secret settings (Bedrock's
 * `secret_key`, `session_token`…). Masking itself is `util/secrets.ts`'
 * {@link redactSecretsIn}.
 *
 * @module
 */
import { isSecretName, redactSecretsIn } from "../util/secrets.ts";
import type { ClientSettings } from "./types.ts";

/** A setting that says where credentials are (`aws_credentials_file`), not one. */
const WHERE = /_(file|path|dir)$/;

/**
 * The secret values of an ask's settings: its key and each backend setting
 * with a secret name (Bedrock's `access_key`, `secret_key`, `session_token`;
 * not `aws_credentials_file`, a path the messages name).
 *
 * @param settings the ask's resolved settings
 * @returns the values (short ones are skipped by the masking)
 */
export function settingsSecrets(settings: Pick<ClientSettings, "key" | "extra">): string[] {
  const out = [settings.key];
  for (const [name, value] of Object.entries(settings.extra ?? {})) {
    if (isSecretName(name) && !WHERE.test(name)) out.push(value);
  }
  return out;
}

/**
 * A provider's answer (an error body, its excerpt) with the secrets the
 * request sent, and any header-shaped credential, masked: what an error
 * message may quote of it.
 *
 * @param text the body or message
 * @param settings the ask's resolved settings
 * @param sent further values the request sent (its credential headers)
 * @returns the text, masked
 */
export function maskAnswer(
  text: string,
  settings: Pick<ClientSettings, "key" | "extra">,
  sent: Iterable<string> = [],
): string {
  return redactSecretsIn(text, [...settingsSecrets(settings), ...sent]);
}
