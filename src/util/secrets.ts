/**
 * What is a secret, decided in one place: option, config and query-parameter
 * names that carry credentials ({@link isSecretName}), values that are keys
 * by their look ({@link looksLikeKey}), urls with credentials in them
 * ({@link redactUrl}, {@link redactUrlsIn}), settings that hold one
 * anywhere, a command line's password too ({@link looksLikeCredential}),
 * and, in free text, the keys a request sent and what a server echoes of
 * its headers ({@link redactSecretsIn}, R146). Every writer of options,
 * urls or error text — failure snapshots, a task-route job's chat, `config
 * list`, error messages, `--debug` traces, warnings, job `.info`, relay
 * replies — goes through these, so a credential never reaches a file or the
 * terminal.
 *
 * @module
 */

/** What a redacted value is shown as. */
export const REDACTED = "***";

/** Last words of a name that make it a credential (`api_key`, `session_token`, `client_secret`). */
const SECRET_LAST = new Set([
  "key",
  "apikey",
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "authorization",
  "auth",
  "credential",
  "credentials",
  "signature",
  "sig",
  "cookie",
  "bearer",
]);

/** Words that make a name a credential wherever they stand (`secret_access_key`, `password_hash`). */
const SECRET_ANYWHERE = new Set(["secret", "password", "passwd", "passphrase", "credentials"]);

/**
 * Names that end like a credential but are none: provider parameters whose
 * values are plain data (a cache or idempotency key, a tokenizer's special
 * tokens). They stay visible in snapshots and in a task-route job's chat.
 */
const NOT_SECRET = new Set([
  "prompt_cache_key",
  "cache_key",
  "idempotency_key",
  "partition_key",
  "sort_key",
  "bos_token",
  "eos_token",
  "pad_token",
  "unk_token",
  "stop_token",
]);

/** `camelCase`, `kebab-case`, `dotted.name` and `UPPER` → `snake_case` words. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/**
 * Whether a name (an option, a config key, a header, a query parameter)
 * names a credential, case-insensitively and whatever its separators:
 * `key`, `api_key`, `apiKey`, `X-Api-Key`, `access_key`, `secret_key`,
 * `session_token`, `access_token`, `aws_access_key_id`, `client_secret`,
 * `password`, `Authorization`, `sig`… — anything ending in a credential
 * word, or holding `secret`/`password`; a few data parameters that only end
 * like one (`prompt_cache_key`, `eos_token`) excepted.
 *
 * @param name the name
 * @returns true when its value must never be written or printed
 *
 * @example
 * ```ts
 * import { isSecretName } from "./secrets.ts";
 * isSecretName("session_token"); // true
 * isSecretName("X-Api-Key"); // true
 * isSecretName("max_tokens"); // false
 * ```
 */
export function isSecretName(name: string): boolean {
  const w = words(name);
  if (w.length === 0) return false;
  const snake = w.join("_");
  if (NOT_SECRET.has(snake)) return false;
  if (SECRET_LAST.has(w.at(-1)!) || w.some((x) => SECRET_ANYWHERE.has(x))) return true;
  // aws_access_key_id, access_key_id: the key's id travels with the secret
  return snake.endsWith("access_key_id");
}

/**
 * Whether a value looks like an API key by itself (`sk-…`, `xai-…`,
 * `gsk_…`, `hf_…`), whatever it is named.
 *
 * @param value the value
 * @returns true for a key-like value
 */
export function looksLikeKey(value: unknown): boolean {
  return typeof value === "string" && /^(sk|xai|gsk|hf)[-_]/.test(value);
}

/** A key-like token inside free text: not glued to a word before it, up to a space or a quote. */
const KEY_IN_TEXT = /(?<![A-Za-z0-9_-])(?:sk|xai|gsk|hf)[-_][^\s"'<>`,;]*/g;

/**
 * Free text with every key-like token in it ({@link looksLikeKey}) replaced
 * by `***`: `"use sk-proj-abc… now"` → `"use *** now"`. For text shown
 * whole (an argument in an error message) that may hold a key among words.
 *
 * @param text the text
 * @returns the text, its key-like tokens redacted
 */
export function redactKeysIn(text: string): string {
  return text.replace(KEY_IN_TEXT, REDACTED);
}

/** The options of `sshpass` that take a value (`-f FILE`, `-d FD`, `-P PROMPT`). */
const SSHPASS_WITH_VALUE = new Set(["-f", "-d", "-P"]);

/** Whether `sshpass`'s own options, from word `i` on, give it a password (`-p PW`, `-pPW`). */
function sshpassPassword(words: string[], i: number): boolean {
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith("-p")) return true;
    if (SSHPASS_WITH_VALUE.has(w)) i++;
    else if (!w.startsWith("-")) return false; // the command sshpass runs: its options are its own
  }
  return false;
}

/** A long option given a value on a command line: `--password PW`, `--api-key=K`. */
const LONG_OPTION = /(?:^|\s)--([A-Za-z][\w.-]*)(?:=|\s+)(?=[^\s-])/g;

/**
 * Whether a setting's value holds a credential by its look, wherever in it:
 * a key ({@link looksLikeKey}, also among words, or after `Bearer`), a url
 * with one ({@link redactUrl}: `http://user:pw@host`, `?key=…`), or a
 * command line given a password (`sshpass -p PW`, `--password PW`,
 * `--api-key=K`: a long option named like a credential, {@link isSecretName},
 * with a value). What only names where a secret is (`sshpass -f FILE`,
 * `sshpass -e`, `ssh -i KEYFILE`) is none.
 *
 * @param value the value
 * @returns true when the value must not be written into a file
 *
 * @example
 * ```ts
 * import { looksLikeCredential } from "./secrets.ts";
 * looksLikeCredential("sshpass -p pw ssh"); // true
 * looksLikeCredential("ssh -p 2222 -i ~/.ssh/id_ed25519"); // false
 * ```
 */
export function looksLikeCredential(value: string): boolean {
  if (looksLikeKey(value) || redactKeysIn(value) !== value) return true;
  if (/\bBearer\s+[^\s"'<>`]/.test(value) || redactUrlsIn(value) !== value) return true;
  const ws = value.split(/\s+/).filter((w) => w !== "");
  if (ws.some((w, i) => /(?:^|\/)sshpass$/.test(w) && sshpassPassword(ws, i + 1))) return true;
  return [...value.matchAll(LONG_OPTION)].some((m) => isSecretName(m[1]!));
}

/** A url in free text: a scheme, `://`, then up to a space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** A query or fragment parameter: its separator, name and value (up to `&`, `;`, `#`, `)`, `]`). */
const PARAM = /([?&;#])([^=&;#?\s]+)=([^&;#)\]]*)/g;

function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * A url with its credentials replaced by `***`: the password of its
 * userinfo (`http://user:***@host`; a userinfo without a password, often a
 * token, wholly: `http://***@host`) and the values of query and fragment
 * parameters whose names are secret ({@link isSecretName}: `key`,
 * `api_key`, `access_token`, `sig`, `X-Amz-Signature`…). Scheme, host,
 * port, path and the other parameters are kept, so the url still says where
 * a request went. Text that is no url comes back unchanged.
 *
 * @param url the url
 * @returns the url, credentials redacted
 *
 * @example
 * ```ts
 * import { redactUrl } from "./secrets.ts";
 * redactUrl("http://bob:pw@proxy:8080/v1?key=abc&x=1"); // "http://bob:***@proxy:8080/v1?key=***&x=1"
 * ```
 */
export function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (!m) return url;
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
  const at = authority.lastIndexOf("@");
  let host = authority;
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(":");
    const shown = colon === -1 ? REDACTED : `${userinfo.slice(0, colon)}:${REDACTED}`;
    host = `${shown}${authority.slice(at)}`;
  }
  const tail = rest.replace(
    PARAM,
    (all, sep: string, name: string) =>
      isSecretName(paramName(name)) ? `${sep}${name}=${REDACTED}` : all,
  );
  return `${scheme}${host}${tail}`;
}

/**
 * Free text (an error message, a stack, a warning) with every url in it
 * passed through {@link redactUrl}.
 *
 * @param text the text
 * @returns the text, the credentials of its urls redacted
 *
 * @example
 * ```ts
 * import { redactUrlsIn } from "./secrets.ts";
 * redactUrlsIn("error sending request for url (http://h/v1?key=abc): refused");
 * // "error sending request for url (http://h/v1?key=***): refused"
 * ```
 */
export function redactUrlsIn(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (url) => {
    // prose around a url: "at http://h/v1?key=k: refused", "(see http://h/x)."
    const end = /[.,:;!?]+$/.exec(url)?.index ?? url.length;
    return redactUrl(url.slice(0, end)) + url.slice(end);
  });
}

/** Shortest secret masked by its value: a shorter one (`"EMPTY"`, `"k"`) cannot be told from a word. */
const MIN_SECRET = 8;

/** A credential token: 8+ token characters, among them a digit or a symbol (not a plain word). */
const TOKEN = String.raw`(?=[\w.~+/=-]*[\d._~+/=-])[\w.~+/=-]{8,}`;

/** `Bearer <token>` / `Basic <token>`: an `Authorization` value, wherever it is echoed. */
const AUTH_SCHEME = new RegExp(
  String.raw`(?<![\w-])(Bearer|bearer|BEARER|Basic|BASIC)(\s+)${TOKEN}`,
  "g",
);

/** A quoted name and its quoted value, in JSON or a Python dict (quotes escaped or not). */
const QUOTED_PAIR = /(\\*)(["'])([\w.-]{1,64})\1\2(\s*[:=]\s*)(\\*)(["'])((?:(?!\6)[^\\\n])*)\5\6/g;

/** Headers that carry a key. */
const KEY_HEADERS = "(?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key";

/** A credential header as a line of headers shows it: `x-api-key: <token>`. */
const HEADER_LINE = new RegExp(String.raw`(?<![\w-])(${KEY_HEADERS})(\s*:\s*)${TOKEN}`, "gi");

/** The fewest characters of a key's head, cut off by an excerpt, that are masked. */
const MIN_CUT_HEAD = 4;

/**
 * `text` with the head of a key that an excerpt cut off (`…sk-abc…` where
 * the text was shortened in the middle of the key) masked: before each `…`,
 * the longest start of one of `known` of at least {@link MIN_CUT_HEAD}
 * characters. An excerpt is made before the sink that knows the keys masks
 * the text (a stream's error event, R146 leftover), so the whole key is no
 * longer there to match.
 */
function maskCutHeads(text: string, known: readonly string[]): string {
  if (known.length === 0 || !text.includes("…")) return text;
  let out = "";
  let from = 0;
  for (let at = text.indexOf("…"); at !== -1; at = text.indexOf("…", at + 1)) {
    const cut = Math.max(0, ...known.map((s) => cutHeadBefore(text, at, s)));
    if (cut === 0) continue;
    out += text.slice(from, Math.max(from, at - cut)) + REDACTED;
    from = at;
  }
  return out + text.slice(from);
}

/** How many characters before `at` are the start of `key` ({@link MIN_CUT_HEAD} or more), else 0. */
function cutHeadBefore(text: string, at: number, key: string): number {
  for (let k = Math.min(key.length - 1, at); k >= MIN_CUT_HEAD; k--) {
    if (text.startsWith(key.slice(0, k), at - k)) return k;
  }
  return 0;
}

/**
 * Free text (an error message, a provider's error body, a stack) with its
 * credentials replaced by `***`: each of `secrets` — the keys a request
 * sent, known to whoever sent it; none shorter than 8 characters — wherever
 * it stands, and its head where an excerpt cut it short before a `…`; the
 * credentials of its urls ({@link redactUrlsIn}); and, what
 * a server may echo back of a request, header-shaped credentials:
 * `Bearer <token>` / `Basic <token>`, quoted values of secret names
 * (`"authorization": "…"`, `"x-api-key": "…"`, {@link isSecretName}), and
 * header lines (`x-api-key: <token>`). Ordinary words stay: a value shown
 * after `Bearer` or a header name is masked only when it holds a digit or a
 * symbol, as tokens do ("Bearer authentication failed" stays).
 *
 * @param text the text
 * @param secrets values to mask wherever they stand (unset ones skipped)
 * @returns the text, its credentials masked
 *
 * @example
 * ```ts
 * import { redactSecretsIn } from "./secrets.ts";
 * redactSecretsIn('echo: {"authorization":"Bearer sk-abc123"} as k9-secret-key', ["k9-secret-key"]);
 * // 'echo: {"authorization":"***"} as ***'
 * ```
 */
export function redactSecretsIn(
  text: string,
  secrets: Iterable<string | undefined> = [],
): string {
  let out = text;
  const known = [...secrets].filter((s): s is string => s !== undefined && s.length >= MIN_SECRET);
  // the longest first: a key that holds another is masked whole
  for (const s of known.sort((a, b) => b.length - a.length)) out = out.split(s).join(REDACTED);
  out = maskCutHeads(out, known);
  out = redactUrlsIn(out);
  out = out.replace(
    QUOTED_PAIR,
    (all, e1: string, q1: string, name: string, sep: string, e2: string, q2: string, v: string) =>
      v !== "" && v !== REDACTED && isSecretName(name)
        ? `${e1}${q1}${name}${e1}${q1}${sep}${e2}${q2}${REDACTED}${e2}${q2}`
        : all,
  );
  out = out.replace(HEADER_LINE, (_all, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  return out.replace(
    AUTH_SCHEME,
    (_all, scheme: string, sp: string) => `${scheme}${sp}${REDACTED}`,
  );
}

/**
 * The credentials a request sends in its headers, to mask where its answer
 * is shown ({@link redactSecretsIn}): the value of each header with a secret
 * name (`Authorization`, `x-api-key`, `api-key`…), and its token alone
 * (`Bearer <token>`).
 *
 * @param headers the request's headers
 * @returns the values
 */
export function headerSecrets(headers: HeadersInit | undefined): string[] {
  const out: string[] = [];
  if (headers === undefined) return out;
  new Headers(headers).forEach((value, name) => {
    if (!isSecretName(name)) return;
    out.push(value);
    const token = /^\S+\s+(\S+)$/.exec(value.trim())?.[1];
    if (token !== undefined) out.push(token);
  });
  return out;
}

/**
 * An error with its credentials masked ({@link redactSecretsIn}) in place:
 * its message, stack and other text fields (a ScoutError's `baseMessage`…),
 * and those of its causes — the error of a request whose answer echoed a key
 * back, before anything shows, records or relays it.
 *
 * @param e what was thrown
 * @param secrets the keys the request sent
 * @returns `e`
 */
export function redactSecretsInError<T>(e: T, secrets: Iterable<string | undefined> = []): T {
  const known = [...secrets];
  let cur: unknown = e;
  for (let depth = 0; cur instanceof Error && depth < 8; depth++, cur = cur.cause) {
    const err = cur as unknown as Record<string, unknown>;
    for (const field of new Set(["message", "stack", ...Object.keys(err)])) {
      const v = err[field];
      if (typeof v !== "string") continue;
      const masked = redactSecretsIn(v, known);
      if (masked === v) continue;
      try {
        err[field] = masked;
      } catch { /* a read-only field (a DOMException's message): left */ }
    }
  }
  return e;
}
