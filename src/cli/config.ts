/**
 * `scout-ai config get|set|unset|list` — the scoped config store
 * (`key value [scope…]` lines: `set`/`unset` write `$SCOUT_HOME/etc/config`,
 * `get`/`list` read every `etc/config` as inference does, `./etc/config`
 * included) and the endpoint files. Secrets (keys, tokens, passwords, the credentials in a url) are
 * never printed.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { Buffer } from "node:buffer";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { scoutHome } from "../config/home.ts";
import { type ConfigEntry, configEntryFor, configGet, loadConfig } from "../config/store.ts";
import { ScoutError, usageError } from "../errors.ts";
import { exists, fileError } from "../util/fs.ts";
import { withFileLockSync } from "../util/file_lock.ts";
import { danglingLinkEnd, writeInPlaceSync } from "../util/in_place.ts";
import { isSecretName, looksLikeKey, redactUrlsIn } from "../util/secrets.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";

/** Shown instead of a secret value. */
export const HIDDEN = "[hidden]";

/** Version of `config list --json`. */
export const CONFIG_JSON_VERSION = 1;

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

/** A value as printed: {@link HIDDEN} for a secret, else its urls without their credentials. */
function printable(key: string, value: string): string {
  return isSecret(key, value) ? HIDDEN : redactUrlsIn(value);
}

function configFile(io: Io): string {
  return join(scoutHome(io.env), "etc", "config");
}

/** Options of `config get`. */
export interface ConfigGetCliOptions {
  /** Key. */
  key: string;
  /** Scope tokens in priority order. */
  scopes: string[];
}

/**
 * `config get KEY [SCOPE…]`: the value the lookup finds, as inference would
 * (`configGet`: the lowest priority, then the earliest scope, then the last
 * entry; without scopes every entry of the key). Exit 1 when nothing is set.
 *
 * @param opts key and scopes
 * @param io injected I/O
 * @returns exit code
 */
export function runConfigGet(opts: ConfigGetCliOptions, io: Io): number {
  const store = loadConfig({ cwd: io.cwd, env: io.env });
  const v = configGet(store, opts.key, opts.scopes, { environment: io.env });
  if (v === undefined) {
    io.stderr.write(`${paint(io, "stderr", "red", "scout-ai:")} ${notSet(store, opts)}\n`);
    return 1;
  }
  const text = v === false ? "false" : v === null ? "nil" : v;
  if (isSecret(opts.key, text)) {
    io.stdout.write(HIDDEN + "\n");
    warn(io, `"${opts.key}" is a secret: it is set, its value is never printed`);
    return 0;
  }
  const shown = redactUrlsIn(text);
  if (shown !== text) warn(io, `the credentials in the url of "${opts.key}" are never printed`);
  io.stdout.write(shown + "\n");
  return 0;
}

/** Why `config get` found nothing: no entry, or an `env:VAR` entry whose variables are unset. */
function notSet(store: ReturnType<typeof loadConfig>, opts: ConfigGetCliOptions): string {
  const entry = configEntryFor(store, opts.key, opts.scopes);
  const value = entry?.value;
  if (typeof value !== "string" || !value.startsWith("env:")) return `Not set: "${opts.key}"`;
  const names = value.slice(4).split(",").map((n) => n.trim()).filter((n) => n !== "");
  const which = names.length === 1
    ? `the environment variable ${names[0]}, which is not set`
    : `the environment variables ${names.join(", ")}, none of which is set`;
  const where = entry?.source !== undefined ? ` (${entry.source})` : "";
  return `"${opts.key}" is read from ${which}${where}`;
}

/** Options of `config set` / `config unset`. */
export interface ConfigSetCliOptions {
  /** Key. */
  key: string;
  /** Value (`set` only); `false`, `nil` and `env:A,B` keep their meaning. */
  value?: string;
  /** Scope tokens of the entry. */
  scopes: string[];
}

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join(" ") === [...b].sort().join(" ");
}

const NL = Buffer.from("\n");

/** The config file's bytes; none when it (or a link's target) is not there. */
function readConfigBytes(file: string): Buffer {
  if (!exists(file)) return Buffer.alloc(0);
  try {
    return readFileSync(file);
  } catch (e) {
    throw fileError(file, e);
  }
}

/**
 * The config file's lines (bytes, without their `\n`) with the entry of
 * `opts.key` and its scopes replaced (set) or dropped (unset), or appended:
 * a line is decoded only to be matched, so every other one keeps its bytes,
 * invalid UTF-8 included (R88-5).
 */
function editedLines(
  bytes: Buffer,
  opts: ConfigSetCliOptions,
): { lines: Buffer[]; found: boolean } {
  const lines: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const nl = bytes.indexOf(0x0a, at);
    const end = nl === -1 ? bytes.length : nl;
    lines.push(bytes.subarray(at, end));
    at = end + 1;
  }
  const entry = Buffer.from([opts.key, opts.value, ...opts.scopes].join(" "));
  let found = false;
  const kept: Buffer[] = [];
  for (const line of lines) {
    const t = line.toString("utf8").trim();
    if (t !== "" && !t.startsWith("#")) {
      const [key, , ...scopes] = t.split(/\s+/);
      if (key === opts.key && sameScopes(scopes, opts.scopes)) {
        if (!found && opts.value !== undefined) kept.push(entry);
        found = true;
        continue;
      }
    }
    kept.push(line);
  }
  if (!found && opts.value !== undefined) kept.push(entry);
  return { lines: kept, found };
}

/**
 * Reads, edits and rewrites the config holding `<file>.lock`: concurrent
 * `config set`/`unset` processes each see the others' entries (R91-4).
 */
function editConfig(file: string, opts: ConfigSetCliOptions): void {
  try {
    mkdirSync(dirname(file), { recursive: true }); // the lock's directory
  } catch { /* the lock's creation says why */ }
  withFileLockSync(file, () => {
    const { lines, found } = editedLines(readConfigBytes(file), opts);
    if (opts.value === undefined && !found) {
      throw new ScoutError(
        "not_found",
        `No entry "${[opts.key, ...opts.scopes].join(" ")}" in ${file}`,
        { file },
      );
    }
    const out = lines.length ? Buffer.concat(lines.flatMap((l) => [l, NL])) : new Uint8Array();
    // a link (a dotfiles one, even to nothing yet) is written through, as Ruby's Open.write does
    writeInPlaceSync(danglingLinkEnd(file), out, file);
  });
}

/**
 * `config set KEY VALUE [SCOPE…]` (or unset with `value` undefined): replaces
 * the entry with the same key and scopes, or appends one; comments and other
 * lines are kept byte for byte; the file is rewritten atomically, a link's
 * target through the link, under `<file>.lock`.
 *
 * @param opts key, value, scopes
 * @param io injected I/O
 * @returns exit code
 */
export function runConfigSet(opts: ConfigSetCliOptions, io: Io): number {
  for (const word of [opts.key, opts.value ?? "x", ...opts.scopes]) {
    if (word === "" || /\s/.test(word)) {
      throw usageError(`Config keys, values and scopes are single words, got "${word}"`);
    }
  }
  const file = configFile(io);
  editConfig(file, opts);
  const shown = opts.value === undefined ? "removed" : `= ${printable(opts.key, opts.value)}`;
  const where = opts.scopes.length ? ` [${opts.scopes.join(" ")}]` : "";
  io.stderr.write(`${opts.key}${where} ${shown} (${file})\n`);
  if (opts.value !== undefined && opts.scopes.length === 0) warnUnscoped(opts.key, io);
  if (opts.value !== undefined) warnShadowed(opts.key, opts.value, opts.scopes, io);
  return 0;
}

/**
 * Warns when a lookup with the scopes just set (as `config get` from here)
 * answers another entry — one of `./etc/config`, read last, or one with a
 * better scope priority — naming its file and line (R84-6).
 */
function warnShadowed(key: string, value: string, scopes: string[], io: Io): void {
  let win: ConfigEntry | undefined;
  try {
    win = configEntryFor(loadConfig({ cwd: io.cwd, env: io.env }), key, scopes);
  } catch {
    return; // a file that cannot be read: `config get` says so
  }
  if (win === undefined || win.value === value) return;
  const where = scopes.length ? ` [${scopes.join(" ")}]` : "";
  const shown = win.value === null ? "nil" : printable(key, win.value);
  warn(
    io,
    `"${key}"${where} is "${shown}" here: the entry at ${win.source} wins over the one just set`,
  );
}

// the scope scout-ai's own lookups of `key` name (the first of their list)
function suggestedScope(key: string): string {
  if (/^epoch_|^(full|max)_tool_(calls|outputs|chars)$/.test(key)) return "prompt";
  if (key === "max_content_length") return "tools";
  if (key === "timeout") return "mcp";
  if (key === "allow_roles") return "chat";
  return "ask";
}

// Ruby `Scout::Config.get` searches an entry's implicit `key:<key>` token only
// when the lookup has no scopes, and no lookup of scout-ai or Scout has none
function warnUnscoped(key: string, io: Io): void {
  warn(
    io,
    `"${key}" was set without a scope: only a lookup without scopes ("scout-ai config get ${key}") ` +
      `reads such an entry, and scout-ai and the Ruby Scout always look settings up with scopes, ` +
      `so neither will use it. Give it the scope of the lookup, e.g. ` +
      `"scout-ai config set ${key} VALUE ${suggestedScope(key)}"`,
  );
}

/** Options of `config list`. */
export interface ConfigListCliOptions {
  /** Print JSON. */
  json?: boolean;
}

function shownValue(e: ConfigEntry): string {
  return e.value === null ? "nil" : printable(e.key, e.value);
}

/**
 * `config list`: the config entries of every file read (secrets hidden), in
 * load order — the lowest-priority file first, so among equals a later entry
 * wins — each with its file and line, and the endpoint files visible from
 * here (backend, model, url, whether a key is set).
 *
 * @param opts `json`
 * @param io injected I/O
 * @returns exit code
 */
export async function runConfigList(opts: ConfigListCliOptions, io: Io): Promise<number> {
  const file = configFile(io);
  const store = loadConfig({ cwd: io.cwd, env: io.env });
  const { endpoints } = await import("../llm/endpoints.ts");
  const eps = await endpoints({ cwd: io.cwd, env: io.env });
  if (opts.json) {
    io.stdout.write(
      JSON.stringify(
        {
          version: CONFIG_JSON_VERSION,
          file,
          files: store.files ?? [],
          entries: store.entries.map((e) => ({
            key: e.key,
            value: e.value === null ? null : shownValue(e),
            scopes: e.tokens,
            source: e.source ?? null,
          })),
          endpoints: eps,
        },
        null,
        2,
      ) + "\n",
    );
    return 0;
  }
  io.stdout.write(entriesText(store.entries, file, io) + endpointsText(eps, io));
  return 0;
}

function entriesText(entries: readonly ConfigEntry[], file: string, io: Io): string {
  const bold = (s: string) => paint(io, "stdout", "bold", s);
  const dim = (s: string) => paint(io, "stdout", "dim", s);
  let out = `${bold("Config")} ${dim(`(later entries win among equals; set writes ${file})`)}\n`;
  if (entries.length === 0) out += `  ${dim("(no entries)")}\n`;
  const kw = Math.max(0, ...entries.map((e) => e.key.length));
  const vw = Math.max(0, ...entries.map((e) => shownValue(e).length));
  const scopesOf = (e: ConfigEntry) => e.tokens.length ? `[${e.tokens.join(" ")}]` : "(no scope)";
  const sw = Math.max(0, ...entries.map((e) => scopesOf(e).length));
  for (const e of entries) {
    out += `  ${e.key.padEnd(kw)}  ${shownValue(e).padEnd(vw)}  ${dim(scopesOf(e).padEnd(sw))}  ${
      dim(e.source ?? "")
    }\n`;
  }
  return out;
}

type EndpointRows = Awaited<ReturnType<typeof import("../llm/endpoints.ts").endpoints>>;

function endpointsText(eps: EndpointRows, io: Io): string {
  const bold = (s: string) => paint(io, "stdout", "bold", s);
  const dim = (s: string) => paint(io, "stdout", "dim", s);
  let out = `${bold("Endpoints")}\n`;
  if (eps.length === 0) {
    out += `  ${dim("(none: add etc/AI/<name>.yaml here or under $SCOUT_HOME)")}\n`;
  }
  const nw = Math.max(0, ...eps.map((e) => e.name.length));
  for (const e of eps) {
    const desc = e.error
      ? paint(io, "stdout", "red", e.error)
      : [e.backend ?? "responses", e.model ?? "-", e.url ?? "", e.hasKey ? "key set" : ""]
        .filter(Boolean).join("  ");
    out += `  ${e.name.padEnd(nw)}  ${desc}  ${dim(e.file)}\n`;
  }
  return out;
}

/**
 * Registers the `config` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerConfig(program: Command, ctx: CliContext): void {
  const config = program.command("config").description(
    "read ./etc/config and $SCOUT_HOME/etc/config, write the latter (key value [scope…]); " +
      "list endpoints",
  );
  config.command("get")
    .description("print the value of KEY for the given scopes (secrets are never printed)")
    .argument("<key>", "config key")
    .argument(
      "[scopes...]",
      "scope tokens, most specific first (none: every entry of KEY, the last one wins)",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  scout-ai config set endpoint nano ask && scout-ai config get endpoint ask\n" +
        "  scout-ai config set max_tool_rounds 20 llm && scout-ai config get max_tool_rounds llm",
    )
    .action((key, scopes) => {
      ctx.exitCode = runConfigGet({ key, scopes }, ctx.io);
    });
  config.command("set")
    .description(
      "set KEY to VALUE in $SCOUT_HOME/etc/config for the given scopes (replaces the same entry)",
    )
    .argument("<key>", "config key")
    .argument("<value>", "value: a word; false, nil and env:VAR1,VAR2 keep their meaning")
    .argument(
      "[scopes...]",
      "scope tokens of the entry; a lookup reads it only under one of them (token::N sets " +
        "its priority, lower wins, default 10). Without scopes only a lookup without scopes " +
        "reads it — scout-ai and the Ruby Scout never do (a warning says so)",
    )
    .addHelpText(
      "after",
      "\nScopes scout-ai looks settings up with, earliest first (<b>: the backend, e.g.\n" +
        "openai; model and key try the server's host scopes first):\n" +
        "  ask, llm                    endpoint, backend, persist, max_tool_rounds\n" +
        "  <b>_ask, ask, <b>           model, key, url, request_timeout\n" +
        "  <b>_ask, ask, <b>, llm      max_retries, max_retry_after\n" +
        "  prompt, context             the prompt-strategy settings (epoch_size…)\n" +
        "  llm_tools, tools, llm, ask  max_content_length\n" +
        "  mcp, tools                  timeout\n" +
        "  chat, compile               allow_roles\n" +
        "\nExamples:\n  scout-ai config set endpoint nano ask\n" +
        "  scout-ai config set key env:MY_OPENAI_KEY openai\n  scout-ai config set persist false ask",
    )
    .action((key, value, scopes) => {
      ctx.exitCode = runConfigSet({ key, value, scopes }, ctx.io);
    });
  config.command("unset")
    .description("remove the entry of KEY with exactly these scopes")
    .argument("<key>", "config key")
    .argument("[scopes...]", "scope tokens of the entry")
    .action((key, scopes) => {
      ctx.exitCode = runConfigSet({ key, scopes }, ctx.io);
    });
  config.command("list")
    .description("list config entries and endpoint files (secrets hidden)")
    .option(
      "--json",
      'print {"version":1, "file" (written by set), "files" (read, highest priority first), ' +
        '"entries":[{key,value,scopes,source}], "endpoints":[…]}',
    )
    .action(async (o) => {
      ctx.exitCode = await runConfigList({ json: o.json }, ctx.io);
    });
}
