/**
 * Splitting a command line into words as a POSIX shell does, without any
 * expansion (Ruby `Shellwords.split`), and quoting a word for one
 * ({@link shellQuote}: a command a message tells the user to run).
 *
 * @module
 */
import { ScoutError } from "../errors.ts";

/** What a backslash escapes inside double quotes (POSIX 2.2.3, Ruby `Shellwords`). */
const DQ_ESCAPABLE = new Set(["$", "`", '"', "\\", "\n"]);

/**
 * Splits text into POSIX shell words (`'…'`, `"…"`, `\` escapes), as Ruby
 * `Shellwords.split`: inside double quotes a backslash escapes only `$`,
 * `` ` ``, `"`, `\` and newline, and is kept before anything else
 * (`"C:\tools\srv.exe"` keeps its backslashes). Nothing is expanded (`$X`,
 * `~`, globs stay as written).
 *
 * @param text the command line
 * @returns the words
 * @throws ScoutError `invalid_input` on an unbalanced quote
 *
 * @example
 * ```ts
 * import { shellWords } from "./shell_words.ts";
 * shellWords(`stdio "npx server --x" read`); // ["stdio", "npx server --x", "read"]
 * ```
 */
export function shellWords(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && DQ_ESCAPABLE.has(text[i + 1] ?? "")) cur += text[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < text.length) {
      cur += text[++i];
      has = true;
    } else if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v") {
      if (has) out.push(cur);
      cur = "";
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (quote) throw new ScoutError("invalid_input", `Unbalanced quote in "${text}"`);
  if (has) out.push(cur);
  return out;
}

/** Words a POSIX shell reads as they are: no space, quote, glob or other special character. */
const SHELL_PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * A word quoted for a POSIX shell, so that a command a message tells the
 * user to run can be pasted: unchanged when it holds only plain characters,
 * else in single quotes (a `'` inside as `'\''`). {@link shellWords} reads
 * it back as the one word.
 *
 * @param word the word (a path, a config value)
 * @returns the word as a shell reads it back
 *
 * @example
 * ```ts
 * import { shellQuote } from "./shell_words.ts";
 * shellQuote("/tmp/x/my home/etc/config"); // "'/tmp/x/my home/etc/config'"
 * shellQuote("/tmp/etc/config"); // "/tmp/etc/config"
 * ```
 */
export function shellQuote(word: string): string {
  if (SHELL_PLAIN.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
