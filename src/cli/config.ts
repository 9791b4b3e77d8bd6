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
import { type ConfigEntry, configEntryFor, configGet, loadConfig } from "../config/store.ts";
import { redactUrlsIn } from "../util/secrets.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { paint, warn } from "./io.ts";
import { configFile, HIDDEN, isSecret, printable } from "./config_values.ts";
import { registerConfigSet } from "./config_set.ts";
import { fittedHelp } from "./help_layout.ts";
import { columnWidth, padToWidth } from "../util/display_width.ts";
import { jsonText } from "../util/json_text.ts";

export { HIDDEN, isSecret };

/** Version of `config list --json`. */
export const CONFIG_JSON_VERSION = 1;

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
      jsonText(
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
  const kw = columnWidth(entries.map((e) => e.key));
  const vw = columnWidth(entries.map(shownValue));
  // an entry without a scope answers only `config get KEY` without scopes: no setting reads it
  const scopesOf = (e: ConfigEntry) =>
    e.tokens.length ? `[${e.tokens.join(" ")}]` : "(no scope: read by nothing)";
  const sw = columnWidth(entries.map(scopesOf));
  for (const e of entries) {
    out += `  ${padToWidth(e.key, kw)}  ${padToWidth(shownValue(e), vw)}  ${
      dim(padToWidth(scopesOf(e), sw))
    }  ${dim(e.source ?? "")}\n`;
  }
  if (entries.some((e) => e.tokens.length === 0)) {
    out += `  ${
      dim(
        '(an entry without a scope is read only by "config get KEY" without scopes: give it ' +
          'the scope its setting is looked up with, e.g. "config set KEY VALUE ask"; ' +
          '"config set --help" lists them)',
      )
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
  const nw = columnWidth(eps.map((e) => e.name));
  for (const e of eps) {
    const desc = e.error
      ? paint(io, "stdout", "red", e.error)
      : [e.backend ?? "responses", e.model ?? "-", e.url ?? "", e.hasKey ? "key set" : ""]
        .filter(Boolean).join("  ");
    out += `  ${padToWidth(e.name, nw)}  ${desc}  ${dim(e.file)}\n`;
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
  ).addHelpText(
    "after",
    fittedHelp(
      "\nExamples:\n  scout-ai config set endpoint nano ask && scout-ai config get endpoint ask\n" +
        "  scout-ai config list\n  scout-ai config unset endpoint ask",
    ),
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
      fittedHelp(
        "\nExamples:\n  scout-ai config set endpoint nano ask && scout-ai config get endpoint ask\n" +
          "  scout-ai config set max_tool_rounds 20 llm && scout-ai config get max_tool_rounds llm",
      ),
    )
    .action((key, scopes) => {
      ctx.exitCode = runConfigGet({ key, scopes }, ctx.io);
    });
  registerConfigSet(config, ctx);
  config.command("list")
    .description("list config entries and endpoint files (secrets hidden)")
    .option(
      "--json",
      'print {"version":1, "file" (written by set), "files" (read, highest priority first), ' +
        '"entries":[{key,value,scopes,source}], "endpoints":[…]}',
    )
    .addHelpText(
      "after",
      fittedHelp(
        "\nExamples:\n  scout-ai config list\n" +
          "  scout-ai config list --json | jq -r '.entries[] | .key + \" \" + .value'",
      ),
    )
    .action(async (o) => {
      ctx.exitCode = await runConfigList({ json: o.json }, ctx.io);
    });
}
