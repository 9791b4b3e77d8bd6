/**
 * Chat compilation (`chat.md` §5, Ruby `LLM.chat`): turns a chat as written
 * into the chat that is sent — imports spliced in, history cleared, config
 * applied, jobs run, files read. Three entry points, never guessing text vs
 * path ([DIVERGE D17]): {@link compileFile}, {@link compileText},
 * {@link compile} (messages).
 *
 * Stage order (parity): 1 normalise (+ [DIVERGE D7] role check), 2 imports,
 * 3 clear, 4 clean (+ drop `skip`, D9), 5 config, 6 tasks, 7 jobs, 8 files.
 * `loadRaw` stays a pure parse; only compile has side effects (config store,
 * allow-lists, jobs).
 *
 * @module
 */
import { resolve } from "node:path";
import { isScoutError, ScoutError } from "../errors.ts";
import type { ConfigStore } from "../config/store.ts";
import { configGet } from "../config/store.ts";
import { processConfig } from "../config/process_config.ts";
import { type WarningSink, withWarningSink } from "../util/warn_once.ts";
import { editDistance, nearNames } from "../util/edit_distance.ts";
import { type AllowPaths, processAllowPaths } from "../config/allow_paths.ts";
import type { Chat, Message } from "./types.ts";
import { parse, parseWithLines } from "./parse.ts";
import { clean, clear } from "./clear.ts";
import { type ChatFileReader, nodeFileReader, readChatText } from "./find_file.ts";
import type { JobRoleResolver } from "./compile_jobs.ts";
import { type CompileContext, errorAt, markLines, recordLines } from "./compile_context.ts";
import { writtenAt } from "./written_at.ts";
import { resolveImports } from "./compile_imports.ts";
import { applyConfig, expandJobs, runTasks } from "./compile_stages.ts";
import { resolveFiles } from "./compile_files.ts";

/**
 * The role catalogue of `chat.md` §4: every role compile accepts without an
 * allow-list entry ([DIVERGE D7]).
 */
export const CHAT_ROLES: ReadonlySet<string> = new Set([
  // 4.1 conversational
  "system",
  "user",
  "assistant",
  "function_call",
  "function_call_output",
  "image",
  "pdf",
  // 4.2 side channel / configuration
  "option",
  "sticky_option",
  "endpoint",
  "model",
  "backend",
  "agent",
  "persist",
  "format",
  "config",
  "previous_response_id",
  "meta",
  "allow_path",
  "allow_read_path",
  "socialize",
  "websearch",
  // 4.3 content producing
  "import",
  "continue",
  "last",
  "file",
  "directory",
  "step",
  "task",
  "inline_task",
  "exec_task",
  "job",
  "inline_job",
  // 4.4 tool declaring
  "tool",
  "introduce",
  "mcp",
  "kb",
  "association",
  "clear_tools",
  "clear_associations",
  // 4.5 context control
  "clear",
  "clean_role",
  "clear_role",
  "skip",
]);

/** Config key (scopes `chat`, `compile`) listing extra allowed roles, comma separated. */
export const ALLOW_ROLES_KEY = "allow_roles";

/** Options of the compile entry points. */
export interface CompileOptions {
  /**
   * The chat file the messages come from: relative references resolve next
   * to it first, and it starts the import chain. `compileFile` sets it.
   */
  origin?: string;
  /** Name used in errors when there is no origin (default `<text>` / `<messages>`). */
  name?: string;
  /**
   * Where given messages came from, for errors ({@link compile} only): a
   * message found here is named by its entry instead of `name` (a message's
   * own written-at mark still comes first). The CLI names the part of an ask
   * a message came from this way (`-f`, `-i`, a line of the question).
   */
  where?: ReadonlyMap<Message, { file: string; line?: number }>;
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Environment: `HOME`, `SCOUT_HOME`, `SCOUT_CHAT_JOB_EXCEPTION` (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Chat search path (default `<cwd>/chats`, `$SCOUT_HOME/chats`). */
  chatDirs?: readonly string[];
  /** Library directory searched after the origin (Ruby's caller lib dir; off by default). */
  libDir?: string;
  /** How files and URLs are read (default: `node:fs` and `fetch`). */
  reader?: ChatFileReader;
  /**
   * Store `config:` lines go to (default: the process's store of this
   * compile's `cwd` and `env` — {@link processConfig} — which an `ask` given
   * the same `cwd` and `env` reads).
   */
  config?: ConfigStore;
  /**
   * Where warnings about the chat go (a `config:` line without a scope, an
   * `etc/config` entry no lookup reads…); default: the enclosing sink, else
   * the process-wide one, else stderr (see `withWarningSink`).
   */
  warn?: WarningSink;
  /** Allow-lists `allow_path:` lines go to (default: the process-wide lists). */
  allowPaths?: AllowPaths;
  /** Resolver of `task`/`job`/`step`… (default: none → those roles are `not_available`). */
  jobs?: JobRoleResolver;
  /**
   * Roles accepted besides the catalogue ({@link CHAT_ROLES}); also read from
   * config key `allow_roles` (scopes `chat`, `compile`).
   */
  allowRoles?: Iterable<string>;
  /**
   * The caller's own way to add to {@link CompileOptions.allowRoles}, named
   * in the unknown-role error after the config key (the CLI's
   * `--allow-role`, on the commands that have it); none: the error names
   * the config key only.
   */
  allowRoleFlag?: string;
  /**
   * What a git merge conflict in an imported chat (`import:`, `continue:`,
   * `last:`, the CLI's `-i`) does ([TS-FIX] `chat.md` §7, R133-2): `"refuse"`
   * (default, a chat to be sent) fails with `merge_conflict` at the imported
   * file's `<<<<<<<` line when the conflict spans a role header and warns of
   * one inside a message; `"warn"` (`chat compile`, `chat prompt`: read only)
   * warns of either. The chat compiled itself is the caller's to check.
   */
  mergeConflicts?: "refuse" | "warn";
}

function context(opts: CompileOptions, chain: string[]): CompileContext {
  const env = opts.env ?? process.env;
  const config = opts.config ?? processConfig(env, opts.cwd);
  const allow = new Set(opts.allowRoles ?? []);
  const fromConfig = configGet(config, ALLOW_ROLES_KEY, ["chat", "compile"], { environment: env });
  if (typeof fromConfig === "string") {
    for (const r of fromConfig.split(/[,\s]+/)) if (r !== "") allow.add(r);
  }
  return {
    opts: {
      cwd: opts.cwd ?? process.cwd(),
      env,
      reader: opts.reader ?? nodeFileReader,
      chatDirs: opts.chatDirs,
      libDir: opts.libDir,
      config,
      allowPaths: opts.allowPaths ?? processAllowPaths(),
      jobs: opts.jobs,
      allowRoles: allow,
      allowRoleFlag: opts.allowRoleFlag,
      mergeConflicts: opts.mergeConflicts ?? "refuse",
    },
    where: new WeakMap(),
    chain,
  };
}

/**
 * Converts a question to messages (Ruby `LLM.messages(question, role =
 * nil)`): a string is parsed as chat text (its own `role:` lines decide, and
 * `role` is not used, as in Ruby); in an array, strings become messages of
 * `role` (default `user`) and objects are kept as they are.
 *
 * @param question chat text, or a list of strings and messages
 * @param role the role of the array's strings (default `"user"`; any string,
 *   even empty, is used as given, as Ruby's `role || "user"`)
 * @returns the messages (nothing compiled)
 *
 * @example
 * ```ts
 * import { toMessages } from "./compile.ts";
 * toMessages(["hi", { role: "system", content: "be brief" }]);
 * // [{ role: "user", content: "hi" }, { role: "system", content: "be brief" }]
 * toMessages(["You are terse"], "system");
 * // [{ role: "system", content: "You are terse" }]
 * toMessages("assistant: hello", "system");
 * // parsed text: the role argument does not apply
 * ```
 */
export function toMessages(
  question: string | readonly (string | Message)[],
  role?: string,
): Chat {
  if (typeof question === "string") return parse(question);
  const r = role ?? "user";
  return question.map((q) => typeof q === "string" ? { role: r, content: q } : q);
}

/**
 * Compiles chat text. With `opts.origin`, relative references resolve next
 * to that file and errors name it; otherwise they resolve against `cwd`.
 *
 * @param text chat text
 * @param opts see {@link CompileOptions}
 * @returns the compiled messages
 * @throws ScoutError `import_not_found`, `file_not_found`, `import_cycle`,
 *   `nothing_to_continue`, `unknown_role`, `not_available`, `invalid_input`…
 *   with `file` and `line` of the offending message
 *
 * @example
 * ```ts
 * import { compileText } from "./compile.ts";
 * await compileText("user: a\nclear: here\nuser: b", { config: { entries: [] } });
 * // [{ role: "user", content: "b" }]
 * ```
 */
export function compileText(text: string, opts: CompileOptions = {}): Promise<Chat> {
  return withWarningSink(opts.warn, () => compileTextIn(text, opts));
}

async function compileTextIn(text: string, opts: CompileOptions): Promise<Chat> {
  const cwd = opts.cwd ?? process.cwd();
  const origin = opts.origin === undefined ? undefined : resolve(cwd, opts.origin);
  const ctx = context(opts, origin === undefined ? [] : [origin]);
  const { chat, lines } = parseWithLines(text);
  recordLines(ctx, chat, opts.origin ?? opts.name ?? "<text>", lines);
  return markLines(ctx, await compileLevel(chat, origin, ctx));
}

/**
 * Reads and compiles a chat file (origin = that file).
 *
 * @param path chat file (relative to `opts.cwd`)
 * @param opts see {@link CompileOptions} (`origin` is ignored)
 * @returns the compiled messages
 * @throws ScoutError `not_found`/`io` for the file itself, `chat_encoding` for one in UTF-16/UTF-32,
 *   else as {@link compileText}
 *
 * @example
 * ```ts ignore
 * import { compileFile } from "./compile.ts";
 * const chat = await compileFile("session.chat");
 * ```
 */
export async function compileFile(path: string, opts: CompileOptions = {}): Promise<Chat> {
  const cwd = opts.cwd ?? process.cwd();
  const abs = resolve(cwd, path);
  const reader = opts.reader ?? nodeFileReader;
  let text: string;
  try {
    text = await readChatText(reader, abs); // a UTF-16 chat is refused (chat_encoding)
  } catch (e) {
    if (isScoutError(e)) {
      throw new ScoutError(e.code, e.message.replace(`"${abs}"`, `"${path}"`), {
        ...(e.code === "chat_encoding"
          ? {
            encoding: e.encoding,
            mark: e.mark,
            ...(e.utf8From === undefined ? {} : { utf8From: e.utf8From }),
          }
          : {}),
        file: path,
        cause: e,
      });
    }
    throw e;
  }
  return await compileText(text, { ...opts, origin: path });
}

/**
 * Compiles messages (a DSL-built or JSON chat). Input messages are never
 * modified (D15: resolved `pdf`/`image` paths go to copies).
 *
 * @param messages the chat
 * @param opts see {@link CompileOptions}
 * @returns the compiled messages
 * @throws ScoutError as {@link compileText} (errors name `opts.origin` or `<messages>`, no
 *   line — or the file and line a message marked by an earlier compile was written on)
 *
 * @example
 * ```ts
 * import { compile } from "./compile.ts";
 * await compile([{ role: "user", content: "" }, { role: "user", content: "hi" }], {
 *   config: { entries: [] },
 * }); // [{ role: "user", content: "hi" }]
 * ```
 */
export function compile(
  messages: readonly (Message | string)[],
  opts: CompileOptions = {},
): Promise<Chat> {
  return withWarningSink(opts.warn, () => compileIn(messages, opts));
}

async function compileIn(
  messages: readonly (Message | string)[],
  opts: CompileOptions,
): Promise<Chat> {
  const cwd = opts.cwd ?? process.cwd();
  const origin = opts.origin === undefined ? undefined : resolve(cwd, opts.origin);
  const ctx = context(opts, origin === undefined ? [] : [origin]);
  const file = opts.origin ?? opts.name ?? "<messages>";
  const list = toMessages(messages);
  // a message marked by an earlier compile (an agent's start chat) keeps its file and line
  for (const m of list) ctx.where.set(m, writtenAt(m) ?? opts.where?.get(m) ?? { file });
  return markLines(ctx, await compileLevel(list, origin, ctx));
}

/** One full compile of one file's (or the caller's) messages. */
async function compileLevel(
  input: Message[],
  origin: string | undefined,
  ctx: CompileContext,
): Promise<Message[]> {
  let chat = normalise(input, ctx);
  chat = await resolveImports(chat, origin, ctx, compileLevel);
  chat = clear(chat);
  chat = clean(chat, "skip");
  chat = applyConfig(chat, ctx);
  chat = await runTasks(chat, origin, ctx);
  chat = await expandJobs(chat, ctx);
  chat = await resolveFiles(chat, origin, ctx);
  return chat;
}

/** Stage 1: string roles, `{role, content}` records, and the D7 role check. */
function normalise(input: readonly Message[], ctx: CompileContext): Message[] {
  return input.map((m, i) => {
    if (m === null || typeof m !== "object") {
      throw new ScoutError("invalid_input", `Message ${i} is ${typeof m}, not an object`);
    }
    let out = m;
    if (typeof m.role !== "string") {
      out = { ...m, role: String(m.role) };
      const w = ctx.where.get(m);
      if (w !== undefined) ctx.where.set(out, w);
    }
    if (!CHAT_ROLES.has(out.role) && !ctx.opts.allowRoles.has(out.role)) {
      throw errorAt(ctx, out, "unknown_role", unknownRoleMessage(out.role, ctx.opts.allowRoleFlag));
    }
    return out;
  });
}

/**
 * The unknown role's message: the near roles first (a typo like `sytem:`
 * wants `system:`, not an allow-list entry; R128-5), then how to allow it.
 * Ruby raises the same error; only the text differs.
 */
function unknownRoleMessage(role: string, flag: string | undefined): string {
  const near = nearRoles(role);
  const allow = `(allow it with config "${ALLOW_ROLES_KEY}"${flag ? ` or ${flag}` : ""})`;
  return near.length > 0
    ? `Unknown role "${role}": did you mean ${
      near.map((n) => `"${n}"`).join(" or ")
    }? Not a chat role ${allow}`
    : `Unknown role "${role}": not a chat role ${allow}`;
}

/**
 * The chat roles a mistyped `role` may mean: of {@link nearNames}, the nearest
 * only, and at most a third of its length away (at least one edit). The
 * catalogue is many short words and a log line's `make:` or a `todo:` is no
 * typo: `sytem` is 1 from `system` but 2 from `step`, `make` 2 from `image`.
 */
function nearRoles(role: string): string[] {
  const dist = (n: string) => editDistance(role.toLowerCase(), n);
  const limit = Math.max(1, Math.floor(role.length / 3));
  const near = nearNames(role, [...CHAT_ROLES]).filter((n) => dist(n) <= limit);
  return near.filter((n) => dist(n) === dist(near[0]!));
}
