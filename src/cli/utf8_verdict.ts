/**
 * The verdict of `utf8_guard.ts` on the inputs it suspects: a U+FFFD that
 * stands for bytes that are not UTF-8 (the kernel's bytes say so, or there
 * are none to ask) makes one message naming the input, its bytes shown with
 * `\xNN` for each one that is not UTF-8; a U+FFFD the user typed passes.
 *
 * @module
 */
import { decodeEscaped } from "../util/utf8_bytes.ts";
import { isSecretName, looksLikeKey, redactKeysIn, redactUrlsIn } from "../util/secrets.ts";
import { rawArgs, rawEnv, type RawProcess } from "./raw_process.ts";

/** Inputs whose decoded text may hide bytes that are not UTF-8 (`suspectInput`'s answer). */
export interface Suspects {
  /** Indexes (from 0) of the arguments holding a U+FFFD. */
  args: number[];
  /** Variables holding a U+FFFD, or (value undefined) that the runtime refused to decode. */
  env: { name: string; value?: string }[];
  /** The working directory when it holds a U+FFFD, or the runtime's error when it refused it. */
  cwd?: { path: string } | { error: string };
}

/** What cannot be done with such bytes, and what to do. */
const NOT_UTF8 = " is not valid UTF-8: scout-ai cannot name such a file or read such text; " +
  "rename the file";

/**
 * The message for the first input that is not UTF-8: arguments, then
 * variables, then the working directory.
 *
 * @param args the program's arguments (as decoded)
 * @param suspects what `suspectInput` found
 * @param raw the kernel's bytes (parts missing without `/proc`)
 * @returns the message (no `scout-ai: ` prefix), or null when every U+FFFD was typed
 */
export function nonUtf8Message(
  args: readonly string[],
  suspects: Suspects,
  raw: RawProcess,
): string | null {
  const argBytes = raw.cmdline && rawArgs(raw.cmdline, args.length);
  for (const i of suspects.args) {
    const bad = badInput(args[i], argBytes?.[i]);
    if (bad === null) continue;
    const hide = afterSecretName(args[i - 1]) ? () => true : argSecret;
    return `argument ${i + 1}${shown(bad, hide)}${NOT_UTF8}, or give the text in UTF-8`;
  }
  for (const { name, value } of suspects.env) {
    const bad = badInput(value, raw.environ && rawEnv(raw.environ, name));
    if (bad === null) continue;
    const hide = isSecretName(name) ? () => true : (t: string) => looksLikeKey(t);
    const what = `environment variable ${name}${shown(bad, hide)}`;
    return `${what}${NOT_UTF8}, or give ${name} a UTF-8 value`;
  }
  const cwd = suspects.cwd;
  if (cwd === undefined) return null;
  const bad = "path" in cwd ? badInput(cwd.path, raw.cwd) : { text: denoPath(cwd.error, raw) };
  if (bad === null) return null;
  return `the working directory${shown(bad, () => false)} is not valid UTF-8: scout-ai cannot ` +
    "name the files in it; rename it, or run scout-ai from another directory";
}

/** An input found not UTF-8: its text as shown (`\xNN` for bad bytes), if it can be shown. */
interface Bad {
  text?: string;
}

/**
 * Whether a decoded value hides bytes that are not UTF-8.
 *
 * @param decoded the runtime's text (undefined: the runtime refused to decode it)
 * @param bytes the kernel's bytes of it, if known
 * @returns null when it is UTF-8 (a typed U+FFFD), else how to show it
 */
function badInput(decoded: string | undefined, bytes: Uint8Array | undefined): Bad | null {
  // bytes that decode to another text are not this input's (never seen): not trusted
  const same = bytes !== undefined &&
    (decoded === undefined || new TextDecoder().decode(bytes) === decoded);
  if (same) {
    const { text, escaped } = decodeEscaped(bytes);
    if (!escaped && decoded !== undefined) return null;
    return { text: showEscaped(text) };
  }
  return { text: decoded === undefined ? undefined : showEscaped(decoded) };
}

/** Each escaped byte (a lone U+DC80–U+DCFF), control character, quote and backslash. */
// deno-lint-ignore no-control-regex
const UNSHOWN = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]|[\u0000-\u001f\u007f"\\]/g;

/**
 * Text of `decodeEscaped` as a message shows it: `\xNN` for each byte that
 * is not UTF-8 and each control character; `\"` and `\\`.
 *
 * @param text decoded text, bad bytes as lone surrogates
 * @returns the text to put between quotes
 */
export function showEscaped(text: string): string {
  return text.replace(UNSHOWN, (c) => {
    if (c === '"' || c === "\\") return `\\${c}`;
    return `\\x${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, "0")}`;
  });
}

/**
 * ` ("text")`, or nothing when the text is unknown or a credential; urls
 * without their credentials, key-like tokens among words as `***`.
 */
function shown(bad: Bad, hide: (text: string) => boolean): string {
  if (bad.text === undefined || hide(bad.text)) return "";
  return ` ("${redactKeysIn(redactUrlsIn(bad.text))}")`;
}

/**
 * Whether an argument is the value of the one before it, a credential's
 * name: `config set api_key VALUE`, `--api-key VALUE` (`config list` hides
 * such a value too). A name is one word, dashes before it allowed.
 */
function afterSecretName(previous: string | undefined): boolean {
  return previous !== undefined && /^-{0,2}[A-Za-z0-9_.-]+$/.test(previous) &&
    isSecretName(previous);
}

/** An argument that is a key, or `name=value` with a credential's name (`-O api_key=…`). */
function argSecret(text: string): boolean {
  const named = /^([A-Za-z0-9_.-]+)=(.*)$/s.exec(text);
  return looksLikeKey(text) ||
    (named !== null && (isSecretName(named[1]!) || looksLikeKey(named[2])));
}

/**
 * The working directory as Deno's error names it (`File name or path
 * "/d/bad\xE9" is not valid UTF-8`), its `\xNN` in lower case as
 * {@link showEscaped} writes them; or from the kernel's bytes when they
 * could be read.
 */
function denoPath(error: string, raw: RawProcess): string | undefined {
  if (raw.cwd !== undefined) return showEscaped(decodeEscaped(raw.cwd).text);
  const m = /"(.*)" is not valid UTF-8/s.exec(error);
  return m?.[1]?.replace(/\\x([0-9A-F]{2})/g, (_, h: string) => `\\x${h.toLowerCase()}`);
}
