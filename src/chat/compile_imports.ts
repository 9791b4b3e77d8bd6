/**
 * Compile stage 2 (`chat.md` §4.3, §5.2): `import:`, `continue:` and
 * `last:` splice in another chat file, each compiled recursively with that
 * file as origin. Import cycles are an `import_cycle` error
 * ([DIVERGE D16]), never a stack overflow.
 *
 * @module
 */
import type { Message } from "./types.ts";
import { parseWithLines } from "./parse.ts";
import { purge } from "./clear.ts";
import { isUrlRef, readChatText } from "./find_file.ts";
import { type WideChat, wideChatError } from "./encoding.ts";
import { isScoutError } from "../errors.ts";
import {
  type CompileContext,
  displayPath,
  errorAt,
  locateReference,
  recordLines,
  refOf,
} from "./compile_context.ts";
import { readFailure } from "../util/fs.ts";
import { warnOnce } from "../util/warn_once.ts";
import { mergeConflict, mergeConflictError, mergeConflictWarning } from "./conflict.ts";

/** Roles resolved by this stage. */
export const IMPORT_ROLES: ReadonlySet<string> = new Set(["import", "continue", "last"]);

/** A full compile of some messages with a given origin (injected to avoid an import cycle). */
export type CompileLevel = (
  messages: Message[],
  origin: string | undefined,
  ctx: CompileContext,
) => Promise<Message[]>;

/**
 * Replaces every import-like message by the compiled messages it names.
 *
 * @param messages this level's messages
 * @param origin the file they come from (absolute), if any
 * @param ctx the compile
 * @param compileLevel the recursive compile
 * @returns the messages with imports spliced in
 */
export async function resolveImports(
  messages: readonly Message[],
  origin: string | undefined,
  ctx: CompileContext,
  compileLevel: CompileLevel,
): Promise<Message[]> {
  const out: Message[] = [];
  for (const m of messages) {
    if (!IMPORT_ROLES.has(m.role)) {
      out.push(m);
      continue;
    }
    for (const x of await importOne(m, origin, ctx, compileLevel)) out.push(x); // no spread: huge imports
  }
  return out;
}

async function importOne(
  m: Message,
  origin: string | undefined,
  ctx: CompileContext,
  compileLevel: CompileLevel,
): Promise<Message[]> {
  const ref = refOf(m);
  const { opts } = ctx;
  const found = locateReference(ctx, m, ref, origin, {
    code: "import_not_found",
    what: "Import not found",
  });
  const cycleAt = ctx.chain.indexOf(found);
  if (cycleAt !== -1) {
    const names = [...ctx.chain.slice(cycleAt), found].map((p) => displayPath(p, opts.cwd));
    throw errorAt(ctx, m, "import_cycle", `Import cycle: ${names.join(" → ")}`, {
      reference: ref,
      cycle: names,
    });
  }
  if (!isUrlRef(found) && opts.reader.kind(found) === "directory") {
    throw errorAt(ctx, m, "invalid_input", `Cannot import "${ref}": it is a directory`, {
      reference: ref,
    });
  }
  const text = await readImport(m, ref, found, ctx);
  const name = displayPath(found, opts.cwd);
  checkConflict(ctx, text, name);
  const { chat: parsed, lines } = parseWithLines(text);
  recordLines(ctx, parsed, name, lines);
  let selected: Message[];
  if (m.role === "import") selected = purge(parsed);
  else {
    const pool = m.role === "last" ? purge(parsed) : parsed;
    const pick = m.role === "continue" ? lastNonBlank(pool) : lastNonEmpty(pool);
    if (pick === undefined) {
      throw errorAt(ctx, m, "nothing_to_continue", `Nothing to continue in "${ref}"`, {
        reference: ref,
      });
    }
    selected = [pick];
  }
  ctx.chain.push(found);
  try {
    return await compileLevel(selected, isUrlRef(found) ? undefined : found, ctx);
  } finally {
    ctx.chain.pop();
  }
}

/**
 * The text of an imported chat; a UTF-16/UTF-32 one is refused, named as
 * written (`chat_encoding`, `encoding.ts`).
 */
async function readImport(
  m: Message,
  ref: string,
  found: string,
  ctx: CompileContext,
): Promise<string> {
  try {
    return await readChatText(ctx.opts.reader, found);
  } catch (e) {
    if (isScoutError(e, "chat_encoding")) {
      const from = e.utf8From;
      const wide = {
        encoding: e.encoding,
        mark: e.mark,
        ...(from === undefined ? {} : { utf8From: from }),
      } as WideChat;
      const { message } = wideChatError(ref, wide, { noun: "Import", path: found });
      throw errorAt(ctx, m, "chat_encoding", message, { ...wide, reference: ref, cause: e });
    }
    throw errorAt(ctx, m, "io", `Cannot read import "${ref}": ${readFailure(e)}`, {
      reference: ref,
      cause: e,
    });
  }
}

/**
 * An imported chat a git merge left in conflict is refused, or warned of, as
 * the CLI does for the chat it is given (R133-2): both sides of the merge
 * would be read as turns, a side's question as the other's answer.
 */
function checkConflict(ctx: CompileContext, text: string, name: string): void {
  const found = mergeConflict(text);
  if (found === undefined) return;
  const refuse = ctx.opts.mergeConflicts === "refuse";
  if (refuse && found.header !== undefined) throw mergeConflictError(name, found.line);
  warnOnce(
    `merge conflict ${name}:${found.line} ${refuse}`,
    mergeConflictWarning(name, found.line, refuse),
  );
}

/** `continue`: last message whose content is neither null nor blank (ids kept). */
function lastNonBlank(ms: readonly Message[]): Message | undefined {
  for (let i = ms.length - 1; i >= 0; i--) {
    const c = ms[i]!.content;
    if (c === null || c === undefined) continue;
    if (typeof c === "string" && c.trim() === "") continue;
    return ms[i];
  }
  return undefined;
}

/** `last`: last message whose content is not empty (ids already dropped). */
function lastNonEmpty(ms: readonly Message[]): Message | undefined {
  for (let i = ms.length - 1; i >= 0; i--) {
    const c = ms[i]!.content;
    if (c === "" || c === null || c === undefined) continue;
    return ms[i];
  }
  return undefined;
}
