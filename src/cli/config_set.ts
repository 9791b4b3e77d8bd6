/**
 * `config set` and `config unset`: one entry edited in `$SCOUT_HOME/etc/config`
 * under the file's lock (concurrent runs lose no entry), written through a
 * symbolic link, other lines' bytes kept, a new file made private (`0600`: it
 * may hold API keys); warnings for an entry another one shadows, one without a
 * scope, and a secret written into a file others may read.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import { Buffer } from "node:buffer";
import {
  closeSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
} from "node:fs";
import { dirname } from "node:path";
import { type ConfigEntry, configEntryFor, loadConfig } from "../config/store.ts";
import { suggestedScope } from "../config/unscoped.ts";
import { isScoutError, ScoutError, usageError } from "../errors.ts";
import { exists, fileError } from "../util/fs.ts";
import { cannotText, errnoReason } from "../util/errno_text.ts";
import { refusedByFileSystem } from "../util/fs_refused.ts";
import { shellQuote } from "../util/shell_words.ts";
import { withFileLockSync } from "../util/file_lock.ts";
import { danglingLinkEnd, writeInPlaceSync } from "../util/in_place.ts";
import type { CliContext } from "./context.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import { configFile, isSecret, printable } from "./config_values.ts";
import { fittedHelp } from "./help_layout.ts";

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

/** Whether anything (a file, a link, even to nothing) is at `path`. */
function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the config file empty with mode `0600` whatever the umask, so the
 * atomic rewrite that follows (which keeps a replaced file's mode) leaves it
 * private: a config may hold API keys, and a shared login node's other
 * users must not read them (R102-10). Where it cannot be made, the write
 * that follows fails and says why.
 */
function createPrivate(path: string): void {
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, "wx", 0o600);
  } catch {
    return;
  }
  try {
    fchmodSync(fd, 0o600); // a umask like 0277 would leave it unwritable
  } catch { /* then the write that follows says why */ }
  closeSync(fd);
}

/**
 * Reads, edits and rewrites the config holding `<file>.lock`: concurrent
 * `config set`/`unset` processes each see the others' entries (R91-4).
 */
function editConfig(file: string, opts: ConfigSetCliOptions): void {
  try {
    mkdirSync(dirname(file), { recursive: true }); // the lock's directory
  } catch (e) {
    // its cause (a read-only home), not the lock's "no such file or directory" after it (R119-1)
    const dir = dirname(file);
    throw new ScoutError("io", cannotText("create directory", dir, e), { file: dir, cause: e });
  }
  try {
    withFileLockSync(file, () => rewriteConfig(file, opts));
  } catch (e) {
    // the lock is the means, the config the end: name the file being changed (R166-4)
    const lock = `${file}.lock`;
    if (!isScoutError(e, "io") || e.file !== lock || refusedByFileSystem(e) === null) throw e;
    const why = `${errnoReason(e.cause)} (taking its lock "${lock}")`;
    throw new ScoutError("io", `Cannot change "${file}": ${why}`, { file, cause: e.cause });
  }
}

/** The config rewritten with the entry set or removed (its lock held). */
function rewriteConfig(file: string, opts: ConfigSetCliOptions): void {
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
  const target = danglingLinkEnd(file);
  if (!lexists(target)) createPrivate(target);
  writeInPlaceSync(target, out, file);
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
  if (opts.value !== undefined && holdsSecret(opts.key, opts.value)) warnReadable(file, io);
  return 0;
}

/**
 * Whether an entry's value is a secret itself: a key (`key`, `*_token`…) or
 * a key-like value (`sk-…`), but not `false`, `nil` or `env:VAR`, which
 * name no secret.
 */
function holdsSecret(key: string, value: string): boolean {
  if (value === "false" || value === "nil" || value.startsWith("env:")) return false;
  return isSecret(key, value);
}

/**
 * Warns when the config just given a secret may be read by the file's group
 * or by others: an existing file keeps its mode and group (a group may share
 * one on purpose), so it is said, with the fix, rather than changed (R102-10);
 * the fix's path shell-quoted, so that it can be pasted (R107-5).
 */
function warnReadable(file: string, io: Io): void {
  let mode: number;
  try {
    mode = statSync(file).mode; // a link's target
  } catch {
    return;
  }
  if ((mode & 0o044) === 0) return;
  const who = (mode & 0o004) !== 0 ? "every user" : "its group";
  warn(
    io,
    `"${file}" now holds a secret and ${who} may read it (mode ` +
      `${(mode & 0o777).toString(8).padStart(4, "0")}): run "chmod 600 ${shellQuote(file)}" ` +
      `unless it is shared on purpose`,
  );
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

/**
 * Registers `config set` and `config unset` on the `config` group.
 *
 * @param config the `config` command
 * @param ctx invocation context
 */
export function registerConfigSet(config: Command, ctx: CliContext): void {
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
      fittedHelp(
        "\nScopes scout-ai looks settings up with, earliest first (<b>: the backend, e.g.\n" +
          "openai; model and key try the server's host scopes first):\n" +
          "  ask, llm                    endpoint, backend, persist, max_tool_rounds,\n" +
          "                              max_reply_tool_calls\n" +
          "  <b>_ask, ask, <b>           model, key, url, request_timeout\n" +
          "  <b>_ask, ask, <b>, llm      max_retries, max_retry_after\n" +
          "  prompt, context             the prompt-strategy settings (epoch_size…)\n" +
          "  llm_tools, tools, llm, ask  max_content_length\n" +
          "  mcp, tools                  timeout\n" +
          "  chat, compile               allow_roles\n" +
          "\nExamples:\n  scout-ai config set endpoint nano ask\n" +
          "  scout-ai config set key env:MY_OPENAI_KEY openai\n  scout-ai config set persist false ask",
      ),
    )
    .action((key, value, scopes) => {
      ctx.exitCode = runConfigSet({ key, value, scopes }, ctx.io);
    });
  config.command("unset")
    .description("remove the entry of KEY with exactly these scopes")
    .argument("<key>", "config key")
    .argument("[scopes...]", "scope tokens of the entry")
    .addHelpText(
      "after",
      fittedHelp(
        "\nExamples:\n  scout-ai config set endpoint nano ask && scout-ai config unset endpoint ask",
      ),
    )
    .action((key, scopes) => {
      ctx.exitCode = runConfigSet({ key, scopes }, ctx.io);
    });
}
