/**
 * Shared state of one compile: resolved options, where each message came
 * from (file and line, for errors), and the chain of files being compiled
 * (import-cycle detection).
 *
 * @module
 */
import { relative, resolve } from "node:path";
import { isScoutError, ScoutError, type ScoutErrorCode } from "../errors.ts";
import type { ConfigStore } from "../config/store.ts";
import type { AllowPaths } from "../config/allow_paths.ts";
import { type ChatFileReader, findFile } from "./find_file.ts";
import type { JobRoleResolver } from "./compile_jobs.ts";
import type { Message } from "./types.ts";
import { markWrittenAt, writtenAt } from "./written_at.ts";

/** Where a message was written. */
export interface Where {
  /** Display name of the file (relative to cwd when below it), or `<text>`/`<stdin>`. */
  file?: string;
  /** 1-based line of the message's header (or first text line). */
  line?: number;
}

/** Options resolved once per top-level compile. */
export interface ResolvedCompileOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  reader: ChatFileReader;
  chatDirs: readonly string[] | undefined;
  libDir: string | undefined;
  config: ConfigStore;
  allowPaths: AllowPaths;
  jobs: JobRoleResolver | undefined;
  allowRoles: ReadonlySet<string>;
  allowRoleFlag: string | undefined;
  mergeConflicts: "refuse" | "warn";
}

/** State of one top-level compile. */
export interface CompileContext {
  /** Options. */
  opts: ResolvedCompileOptions;
  /** Where each message object came from. */
  where: WeakMap<Message, Where>;
  /** Absolute paths (or URLs) of the files being compiled, outermost first. */
  chain: string[];
}

/**
 * A path for messages: relative to `cwd` when below it, else absolute; URLs as is.
 *
 * @param path absolute path or URL
 * @param cwd working directory
 * @returns the display name
 */
export function displayPath(path: string, cwd: string): string {
  if (/^[a-z]+:\/\//i.test(path)) return path;
  const rel = relative(cwd, resolve(cwd, path));
  return rel === "" ? path : rel.startsWith("..") ? resolve(cwd, path) : rel;
}

/**
 * An error located at a message (its file and line when known).
 *
 * @param ctx the compile
 * @param m the message the error is about
 * @param code error code
 * @param message text
 * @param fields further context
 * @returns the error, to throw
 */
export function errorAt(
  ctx: CompileContext,
  m: Message,
  code: ScoutErrorCode,
  message: string,
  fields: Record<string, unknown> = {},
): ScoutError {
  const w = ctx.where.get(m) ?? {};
  const loc: Record<string, unknown> = {};
  if (w.file !== undefined) loc.file = w.file;
  if (w.line !== undefined) loc.line = w.line;
  return new ScoutError(code, message, { ...loc, role: m.role, ...fields });
}

/**
 * The job-role resolver of this compile, or a `not_available` error naming
 * the role, file and line of the message that needs it.
 *
 * @param ctx the compile
 * @param m the message with a job-backed role
 * @returns the resolver
 */
export function resolverFor(ctx: CompileContext, m: Message): JobRoleResolver {
  if (ctx.opts.jobs !== undefined) return ctx.opts.jobs;
  throw errorAt(
    ctx,
    m,
    "not_available",
    `Role "${m.role}" needs the workflow engine, which is not available to this compile`,
  );
}

/**
 * Gives an error thrown on behalf of a message (by the resolver) that
 * message's file and line, unless it already names a file.
 *
 * @param ctx the compile
 * @param m the message
 * @param e what was thrown
 * @returns `e`, located when it is a ScoutError
 */
export function located(ctx: CompileContext, m: Message, e: unknown): unknown {
  if (!isScoutError(e) || e.file !== undefined) return e;
  const w = ctx.where.get(m);
  if (w?.file !== undefined) e.file = w.file;
  if (w?.line !== undefined) e.line = w.line;
  return e;
}

/**
 * Records where each parsed message was written: `file`, and the line from
 * `lines` (as given by `parseWithLines`) when there is one.
 *
 * @param ctx the compile
 * @param messages parsed messages
 * @param file display name of their file
 * @param lines start line per message
 */
export function recordLines(
  ctx: CompileContext,
  messages: readonly Message[],
  file: string,
  lines: readonly number[],
): void {
  messages.forEach((m, i) => {
    const w: Where = { file };
    const line = lines[i];
    if (line !== undefined) w.line = line;
    ctx.where.set(m, w);
  });
}

/**
 * Marks the messages a compile produced with the file and line they were
 * written on (see `written_at.ts`), for the errors of lines resolved at ask
 * time. Messages without a line (given as messages) are left as they are.
 *
 * @param ctx the compile
 * @param messages its output
 * @returns `messages`
 */
export function markLines(ctx: CompileContext, messages: Message[]): Message[] {
  for (const m of messages) {
    const w = ctx.where.get(m);
    if (w?.file === undefined || w.line === undefined || writtenAt(m) !== undefined) continue;
    markWrittenAt(m, { file: w.file, line: w.line });
  }
  return messages;
}

/**
 * Records that `next` stands for `source` (same file and line).
 *
 * @param ctx the compile
 * @param source original message
 * @param next message derived from it
 * @returns `next`
 */
export function derive(ctx: CompileContext, source: Message, next: Message): Message {
  const w = ctx.where.get(source);
  if (w !== undefined) ctx.where.set(next, w);
  return next;
}

/**
 * Trimmed text content of a reference-like message (`import:`, `file:` …).
 *
 * @param m the message
 * @returns its content as a trimmed string
 */
export function refOf(m: Message): string {
  return m.content === null || m.content === undefined ? "" : String(m.content).trim();
}

/**
 * Finds a reference with the compile options' search rules (`chat.md` §5.3),
 * or fails at the message that named it.
 *
 * @param ctx compile context
 * @param m the referencing message (for file:line)
 * @param ref the reference as written
 * @param origin file the reference is relative to
 * @param missing error code and message prefix when nothing is found
 * @returns the resolved path (or URL)
 */
export function locateReference(
  ctx: CompileContext,
  m: Message,
  ref: string,
  origin: string | undefined,
  missing: { code: ScoutErrorCode; what: string },
): string {
  const { opts } = ctx;
  const found = findFile(ref, {
    origin,
    libDir: opts.libDir,
    cwd: opts.cwd,
    chatDirs: opts.chatDirs,
    env: opts.env,
    reader: opts.reader,
  });
  if (found === null) {
    throw errorAt(ctx, m, missing.code, `${missing.what}: "${ref}"`, { reference: ref });
  }
  return found;
}
