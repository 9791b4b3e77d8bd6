/**
 * A YAML syntax error (the `yaml` package's) as one line and a line number:
 * its message is several lines (the offending text and a caret) and its
 * first line ends with ` at line N, column M:`; our errors say where as
 * `(<file>:<line>)` instead.
 *
 * @module
 */

/** What to report of a YAML error: its first line without the position, and the line. */
export interface YamlErrorParts {
  /** The problem, on one line (e.g. `Nested mappings are not allowed in compact mappings`). */
  text: string;
  /** 1-based line of the problem, when the error says. */
  line?: number;
}

/**
 * Splits a YAML error into what and where.
 *
 * @param e what the parser threw
 * @returns its text and line
 *
 * @example
 * ```ts
 * import { parse } from "yaml";
 * import { yamlErrorParts } from "./yaml_error.ts";
 * try { parse("a: b: c"); } catch (e) { yamlErrorParts(e).line; } // 1
 * ```
 */
export function yamlErrorParts(e: unknown): YamlErrorParts {
  const message = e instanceof Error ? e.message : String(e);
  const first = message.split("\n")[0]!.trim();
  const line = (e as { linePos?: { line?: number }[] } | null)?.linePos?.[0]?.line;
  const text = first.replace(/\s+at line \d+, column \d+:?$/, "").replace(/:$/, "");
  return typeof line === "number" ? { text, line } : { text };
}
