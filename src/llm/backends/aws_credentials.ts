/**
 * AWS credentials and region for the Bedrock backend, from the resolved
 * settings (`access_key`/`secret_key`/`session_token`/`region` in the chat,
 * endpoint file or config, else `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`, `AWS_REGION`/`AWS_DEFAULT_REGION`), then the shared
 * files `~/.aws/credentials` and `~/.aws/config` (profile `aws_profile` /
 * `AWS_PROFILE`, default `default`). Credentials live only in memory: they
 * are never written to chats, meta records, caches or logs.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScoutError } from "../../errors.ts";
import { fileError } from "../../util/fs.ts";

/** Credentials and region of one request. */
export interface AwsCredentials {
  /** Access key id. */
  accessKeyId: string;
  /** Secret access key. */
  secretAccessKey: string;
  /** Session token of temporary credentials. */
  sessionToken?: string;
  /** Region, e.g. `us-east-1`. */
  region: string;
}

/**
 * Parses an AWS shared config/credentials file (INI): `[section]` headers and
 * `key = value` lines; `#`/`;` comments.
 *
 * @param text file text
 * @returns section → key → value
 */
export function parseAwsIni(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let section: Record<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (head) {
      section = out[head[1]!] ??= {};
      continue;
    }
    const eq = line.indexOf("=");
    if (section && eq > 0) section[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** The sections of the INI file at `path`; none when there is no such file. */
function readIni(path: string): Record<string, Record<string, string>> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === "ENOENT") return {};
    throw fileError(path, e); // a directory, no permission: not the same as no file
  }
  return parseAwsIni(text);
}

/**
 * Resolves credentials and region.
 *
 * @param extra the backend's resolved settings (`ClientSettings.extra`)
 * @returns credentials and region
 * @throws ScoutError `missing_key` without credentials, `config` without a region
 *   (both name the shared file looked in), `io` when a shared file cannot be read
 */
export function awsCredentials(extra: Record<string, string>): AwsCredentials {
  const home = extra.home ?? "";
  const profile = extra.aws_profile ?? "default";
  let accessKeyId = extra.access_key;
  let secretAccessKey = extra.secret_key;
  let sessionToken = extra.session_token;
  const file = extra.aws_credentials_file ?? join(home, ".aws", "credentials");
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    const p = readIni(file)[profile] ?? {};
    accessKeyId = p.aws_access_key_id;
    secretAccessKey = p.aws_secret_access_key;
    sessionToken = p.aws_session_token;
  }
  if (!accessKeyId || !secretAccessKey) {
    throw new ScoutError(
      "missing_key",
      `No AWS credentials for backend "bedrock": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ` +
        `access_key and secret_key in the endpoint file, or profile "${profile}" in "${file}"`,
      { backend: "bedrock", variables: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] },
    );
  }
  let region = extra.region;
  const configFile = extra.aws_config_file ?? join(home, ".aws", "config");
  if (region === undefined) {
    const config = readIni(configFile);
    region = (config[profile === "default" ? "default" : `profile ${profile}`] ?? {}).region;
  }
  if (!region) {
    throw new ScoutError(
      "config",
      `No AWS region for backend "bedrock": set "region" in the endpoint file or config, ` +
        `AWS_REGION, or region in "${configFile}"`,
      { backend: "bedrock" },
    );
  }
  const creds: AwsCredentials = { accessKeyId, secretAccessKey, region };
  if (sessionToken) creds.sessionToken = sessionToken;
  return creds;
}
