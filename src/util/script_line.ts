/**
 * Where in a user's module (`agent.ts`, `workflow.ts`) a thrown error came
 * from, read from its stack: Deno writes the module's frames with `file://`
 * URLs (`at helper (file:///w/agent.ts:2:20)`) — their path not
 * percent-encoded (`file:///w/My Äpfel/agent.ts`) —, Bun — the binary — with
 * plain paths (`at helper (/w/agent.ts:2:10)`).
 *
 * @module
 */
import { pathToFileURL } from "node:url";

/** One stack frame's place: `at name (where:line:col)` or `at where:line:col`. */
const FRAME = /^\s*at (?:.*?\()?(.+?):(\d+):\d+\)?\s*$/;

/**
 * The line of the innermost frame in `file` on the stack of `e`.
 *
 * @param e what was thrown (anything; only an object's string `stack` is read)
 * @param file the user's module, an absolute path
 * @returns the 1-based line, or undefined when no frame is in `file`
 * @example
 * ```ts
 * import { scriptLine } from "./script_line.ts";
 * const e = { stack: "TypeError: x\n    at helper (/w/agent.ts:2:10)\n    at /w/agent.ts:4:1" };
 * scriptLine(e, "/w/agent.ts"); // 2
 * ```
 */
export function scriptLine(e: unknown, file: string): number | undefined {
  let stack: unknown;
  try {
    stack = typeof e === "object" && e !== null ? (e as { stack?: unknown }).stack : null;
  } catch {
    return undefined; // a getter that throws, a revoked proxy
  }
  if (typeof stack !== "string") return undefined;
  // Deno's own spelling (the path as is) and the encoded URL of other runtimes
  const places = new Set([file, `file://${file}`, pathToFileURL(file).href]);
  for (const text of stack.split("\n")) {
    const m = FRAME.exec(text);
    if (m && places.has(m[1]!)) return Number(m[2]);
  }
  return undefined;
}
