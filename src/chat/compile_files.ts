/**
 * Compile stage 8 (`chat.md` §4.3, §5.2): `file:` and `directory:` become
 * `<file>` user messages, `pdf:`/`image:` get their resolved path, `step:`
 * becomes the answer of a job's chat, and `allow_path:`/`allow_read_path:`
 * feed the file tools' allow-lists.
 *
 * @module
 */
import { dirname } from "node:path";
import { addAllowedPath } from "../config/allow_paths.ts";
import { readFailure } from "../util/fs.ts";
import type { Message } from "./types.ts";
import { tagText } from "./builders.ts";
import { parseMeta } from "./meta.ts";
import { isUrlRef } from "./find_file.ts";
import {
  type CompileContext,
  derive,
  errorAt,
  located,
  locateReference,
  refOf,
  resolverFor,
} from "./compile_context.ts";

/** Roles resolved by this stage. */
export const FILE_ROLES: ReadonlySet<string> = new Set([
  "file",
  "directory",
  "pdf",
  "image",
  "step",
  "allow_path",
  "allow_read_path",
]);

/**
 * Resolves the file-like roles.
 *
 * @param messages the messages
 * @param origin the chat file (absolute), if any
 * @param ctx the compile (allow-lists mutated)
 * @returns the messages with references expanded
 */
export async function resolveFiles(
  messages: readonly Message[],
  origin: string | undefined,
  ctx: CompileContext,
): Promise<Message[]> {
  const out: Message[] = [];
  // `step:` reads the last meta with a `job=` before it ([TS-FIX]; Ruby takes
  // the chat's last meta, which a reply's token meta leaves without a job).
  let lastMetaJob: string | undefined;
  for (const m of messages) {
    if (m.role === "meta" && typeof m.content === "string") {
      const job = parseMeta(m.content).job;
      if (job !== undefined && job !== null && job !== "") lastMetaJob = String(job);
    }
    if (!FILE_ROLES.has(m.role)) {
      out.push(m);
      continue;
    }
    const ref = refOf(m);
    switch (m.role) {
      case "allow_path":
      case "allow_read_path": {
        if (ref === "") throw errorAt(ctx, m, "invalid_input", `${m.role}: requires a path`);
        const base = origin === undefined ? ctx.opts.cwd : dirname(origin);
        addAllowedPath(ctx.opts.allowPaths, ref, m.role === "allow_path" ? "write" : "read", base);
        break;
      }
      case "step":
        out.push(await step(m, ref, lastMetaJob, ctx));
        break;
      case "pdf":
      case "image":
        out.push(derive(ctx, m, { ...m, content: locate(m, ref, origin, ctx) }));
        break;
      case "file": {
        const found = locate(m, ref, origin, ctx);
        if (!isUrlRef(found) && ctx.opts.reader.kind(found) === "directory") {
          throw errorAt(
            ctx,
            m,
            "invalid_input",
            `Cannot include "${ref}" with file: it is a directory (use directory:)`,
            { reference: ref },
          );
        }
        const text = await read(m, ref, found, ctx);
        out.push(derive(ctx, m, { role: "user", content: tagText(text, { name: ref }) }));
        break;
      }
      case "directory": {
        const found = locate(m, ref, origin, ctx);
        if (isUrlRef(found) || ctx.opts.reader.kind(found) !== "directory") {
          throw errorAt(ctx, m, "invalid_input", `Not a directory: "${ref}"`, { reference: ref });
        }
        const files = await ctx.opts.reader.listFiles(found);
        for (const f of files) {
          const text = await read(m, f, f, ctx);
          out.push(derive(ctx, m, { role: "user", content: tagText(text, { name: f }) }));
        }
        break;
      }
    }
  }
  return out;
}

function locate(m: Message, ref: string, origin: string | undefined, ctx: CompileContext): string {
  return locateReference(ctx, m, ref, origin, { code: "file_not_found", what: "File not found" });
}

async function read(m: Message, ref: string, path: string, ctx: CompileContext): Promise<string> {
  try {
    return await ctx.opts.reader.readText(path);
  } catch (e) {
    throw errorAt(ctx, m, "io", `Cannot read "${ref}": ${readFailure(e)}`, {
      reference: ref,
      cause: e,
    });
  }
}

async function step(
  m: Message,
  taskName: string,
  metaJob: string | undefined,
  ctx: CompileContext,
): Promise<Message> {
  const jobs = resolverFor(ctx, m);
  if (metaJob === undefined) {
    throw errorAt(ctx, m, "invalid_input", "step: requires a meta job reference");
  }
  try {
    const answer = await jobs.stepAnswer(metaJob, taskName);
    return derive(ctx, m, { role: "assistant", content: answer });
  } catch (e) {
    throw located(ctx, m, e);
  }
}
