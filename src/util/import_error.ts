/**
 * Why a user's module (`workflow.ts`, `agent.ts`) failed to import, and
 * where, from what the runtime threw: Deno puts the place in its message
 * (`… at file:///…/agent.ts:2:13`); Bun throws a `BuildMessage` carrying a
 * `position`, or, for several errors, an `AggregateError` ("2 errors building
 * …") whose `errors` are those messages, or a `ResolveMessage` for a package
 * it cannot find (`./package_import.ts`). A module that throws while it runs
 * (`throw` at its top level) has the place on the thrown error's stack.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { plainMessage } from "../errors.ts";
import { packageImportFailure } from "./package_import.ts";
import { scriptLine } from "./script_line.ts";

/** What {@link importFailure} found: the text for the message, and where. */
export interface ImportFailure {
  /** The runtime's message on one line (Bun: the first error's, with "(+N more)"). */
  text: string;
  /** The file the error is in (the imported one, or a module it imports, under Bun). */
  file: string;
  /** 1-based line in `file`, when the runtime says. */
  line?: number;
}

/** A Bun build error's place (`BuildMessage.position`). */
interface Position {
  file: string;
  line: number;
}

function positionOf(e: unknown): Position | null {
  const p = typeof e === "object" && e !== null ? (e as { position?: unknown }).position : null;
  if (typeof p !== "object" || p === null) return null;
  const { file, line } = p as Record<string, unknown>;
  return typeof file === "string" && file !== "" && typeof line === "number" && line > 0
    ? { file, line }
    : null;
}

/**
 * Reads why and where importing `file` failed.
 *
 * @param e what `await import(…)` of `file` threw
 * @param file the imported file (absolute path)
 * @returns the message text and the error's file and line (the file alone when unknown)
 * @example
 * ```ts
 * import { importFailure } from "./import_error.ts";
 * const e = { message: "Unexpected ;", position: { file: "/w/workflow.ts", line: 2 } };
 * importFailure(e, "/w/workflow.ts"); // { text: "Unexpected ;", file: "/w/workflow.ts", line: 2 }
 * ```
 */
export function importFailure(e: unknown, file: string): ImportFailure {
  // Bun: a package it cannot find, named with no place (R126-1)
  const pkg = packageImportFailure(e);
  if (pkg !== null) return pkg;
  // Bun: one build error, or several in `errors` (the message only counts them)
  const errors = typeof e === "object" && e !== null &&
      Array.isArray((e as { errors?: unknown }).errors)
    ? (e as { errors: unknown[] }).errors
    : [e];
  const first = errors.find((x) => positionOf(x) !== null);
  if (first !== undefined) {
    const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : "";
    const message = (first as { message?: unknown }).message;
    return {
      text: plainMessage(typeof message === "string" ? message : first) + more,
      ...positionOf(first)!,
    };
  }
  // Deno: where in the file the import failed, when its message says (`at file:///…:1:15`)
  const text = plainMessage(e);
  const at = /at (file:\/\/\S+?):(\d+):\d+/.exec(text);
  if (at && fileURLToPath(at[1]!) === file) return { text, file, line: Number(at[2]) };
  // both: the module ran and threw — the line of `file` its stack passes through
  const line = scriptLine(e, file);
  return line === undefined ? { text, file } : { text, file, line };
}
