/**
 * Where JSON text goes wrong, worked out by a small scanner of our own: the
 * runtimes' `JSON.parse` messages differ (V8 says `… at position 63 (line 2
 * column 32)`, Bun's JavaScriptCore `JSON Parse error: Property name must be
 * a string literal`, with no position), so the binary and the source would
 * report a bad file differently. Run only after `JSON.parse` failed.
 *
 * @module
 */

/** A JSON syntax problem: what is wrong and where (1-based line and column). */
export interface JsonSyntaxProblem {
  /** What is wrong (`expected a double-quoted property name`…). */
  reason: string;
  /** Offset in the text (UTF-16 code units). */
  offset: number;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

/** Scanner failure: the reason and the offset. */
class Stop {
  constructor(readonly reason: string, readonly at: number) {}
}

const WS = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

function shown(text: string, at: number): string {
  if (at >= text.length) return "unexpected end of input";
  return `unexpected character ${JSON.stringify(String.fromCodePoint(text.codePointAt(at)!))}`;
}

function skipWs(text: string, at: number): number {
  while (at < text.length && WS.has(text[at]!)) at++;
  return at;
}

/** The end of the string starting at `at` (a `"`). */
function scanString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c < " ") throw new Stop("bad control character in string literal", i);
    if (c !== "\\") continue;
    const e = text[++i];
    if (e === "u") {
      for (let k = 1; k <= 4; k++) {
        if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) throw new Stop("bad \\u escape", i + k);
      }
      i += 4;
    } else if (e === undefined || !ESCAPES.has(e)) throw new Stop("bad escape in string", i);
  }
  throw new Stop("unterminated string", text.length);
}

function digits(text: string, at: number): number {
  const start = at;
  while (at < text.length && text[at]! >= "0" && text[at]! <= "9") at++;
  if (at === start) throw new Stop(`expected a digit (${shown(text, at)})`, at);
  return at;
}

/** The end of the number starting at `at`. */
function scanNumber(text: string, at: number): number {
  if (text[at] === "-") at++;
  at = text[at] === "0" ? at + 1 : digits(text, at);
  if (text[at] === ".") at = digits(text, at + 1);
  if (text[at] === "e" || text[at] === "E") {
    at++;
    if (text[at] === "+" || text[at] === "-") at++;
    at = digits(text, at);
  }
  return at;
}

/** The end of a scalar value (string, number, literal) at `at`. */
function scanScalar(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return scanString(text, at);
  if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return scanNumber(text, at);
  for (const word of ["true", "false", "null"]) {
    if (c !== word[0]) continue;
    for (let k = 1; k < word.length; k++) {
      if (text[at + k] !== word[k]) throw new Stop(shown(text, at + k), at + k);
    }
    return at + word.length;
  }
  throw new Stop(shown(text, at), at);
}

/** A property name and its colon; returns where the value starts. */
function scanKey(text: string, at: number): number {
  if (text[at] !== '"') {
    throw new Stop(`expected a double-quoted property name (${shown(text, at)})`, at);
  }
  at = skipWs(text, scanString(text, at));
  if (text[at] !== ":") throw new Stop(`expected ':' after property name (${shown(text, at)})`, at);
  return skipWs(text, at + 1);
}

/** Scans the whole text (iteratively: deep nesting needs no deep stack). */
function scan(text: string): void {
  const open: string[] = [];
  let at = skipWs(text, 0);
  for (;;) {
    // a value at `at`
    const c = text[at];
    if (c === "{" || c === "[") {
      at = skipWs(text, at + 1);
      const close = c === "{" ? "}" : "]";
      if (text[at] === close) at++;
      else {
        open.push(close);
        if (c === "{") at = scanKey(text, at);
        continue;
      }
    } else at = scanScalar(text, at);
    // after a value: a separator, a close, or the end
    for (;;) {
      at = skipWs(text, at);
      const close = open[open.length - 1];
      if (close === undefined) {
        if (at < text.length) {
          throw new Stop(`unexpected non-whitespace character after JSON (${shown(text, at)})`, at);
        }
        return;
      }
      if (text[at] === close) {
        open.pop();
        at++;
      } else if (text[at] === ",") {
        at = skipWs(text, at + 1);
        if (close === "}") at = scanKey(text, at);
        break;
      } else {
        const what = close === "}" ? "property value" : "array element";
        throw new Stop(`expected ',' or '${close}' after ${what} (${shown(text, at)})`, at);
      }
    }
  }
}

/**
 * The first syntax problem of JSON text, or null when it has none (the
 * scanner agrees with `JSON.parse` on what is JSON; a text it accepts that
 * the runtime refused failed for another reason, e.g. nesting too deep).
 *
 * @param text the text
 * @returns the problem, or null
 *
 * @example
 * ```ts
 * import { jsonSyntaxProblem } from "./json_error.ts";
 * jsonSyntaxProblem('[1,\n 2,]')?.line; // 2
 * ```
 */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | null {
  try {
    scan(text);
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const before = text.slice(0, e.at);
    const lineStart = before.lastIndexOf("\n") + 1;
    const line = before.split("\n").length;
    return { reason: e.reason, offset: e.at, line, column: e.at - lineStart + 1 };
  }
}

/**
 * What to say about JSON text `JSON.parse` refused, the same in every
 * runtime: `<reason> at line L, column C`, and the line; the runtime's own
 * message only when the scanner finds no syntax problem.
 *
 * @param text the text that failed
 * @param e what `JSON.parse` threw
 * @returns the message and the 1-based line, when known
 */
export function jsonErrorParts(text: string, e: unknown): { text: string; line?: number } {
  const p = jsonSyntaxProblem(text);
  if (p === null) return { text: e instanceof Error ? e.message : String(e) };
  return { text: `${p.reason} at line ${p.line}, column ${p.column}`, line: p.line };
}
