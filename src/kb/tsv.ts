/**
 * Scout's TSV format as association records (`agents.md` §6.2): an options
 * line `#: :sep=,#:type=:double`, a header `#Source\tTarget\tfield…` (the
 * last of the leading `#` lines), rows split on the separator, `|` between
 * the values of a multi-valued (`:double`/`:flat`) column, zipped per
 * association as Scout does (a one-value column repeats). Rows stream from
 * the file in chunks, so a large file never sits in memory as one string.
 * Bad input — a binary file, text that is not UTF-8, a missing header, an empty field name, a row
 * with the wrong number of columns — is a `invalid_input` error naming the
 * file and line.
 *
 * @module
 */
import { closeSync, openSync, readSync } from "node:fs";
import { ScoutError } from "../errors.ts";
import { fileError } from "../util/fs.ts";

/** Options of the `#:` line, Scout's `string2hash` (`:sep=,#:type=:list`). */
export type TsvOptions = Record<string, string | number | boolean>;

/** A TSV header: options, the key field and the other fields. */
export interface TsvHeader {
  /** Options of the `#:` line (`sep`, `type`…). */
  options: TsvOptions;
  /** Column separator (default tab). */
  sep: string;
  /** `double` (default), `list`, `flat` or `single`. */
  type: string;
  /** Every column name, the key field first. */
  fields: string[];
  /** 1-based line of the field names. */
  headerLine: number;
}

/**
 * Parses the options of a `#: ` line the way Scout's `string2hash` does:
 * `#`-separated `key=value` pairs, leading `:` stripped from keys and
 * symbol values, numbers and booleans typed, a bare key is `true`.
 *
 * @param text the text after `#: `
 * @returns the options
 *
 * @example
 * ```ts
 * import { parseTsvOptions } from "./tsv.ts";
 * parseTsvOptions(":sep=,#:type=:list"); // {sep: ",", type: "list"}
 * ```
 */
export function parseTsvOptions(text: string): TsvOptions {
  const out: TsvOptions = {};
  for (const part of text.split("#")) {
    if (part.trim() === "") continue;
    const i = part.indexOf("=");
    let key = i < 0 ? part : part.slice(0, i);
    const value = i < 0 ? "" : part.slice(i + 1);
    if (key.startsWith(":")) key = key.slice(1);
    key = key.trim();
    if (value === "" || value === "true") out[key] = true;
    else if (value === "false") out[key] = false;
    else if (value.startsWith(":")) out[key] = value.slice(1);
    else if (/^['"].*['"]$/.test(value)) out[key] = value.slice(1, -1);
    else if (/^\d+$/.test(value)) out[key] = Number.parseInt(value, 10);
    else if (/^\d*\.\d+$/.test(value)) out[key] = Number.parseFloat(value);
    else out[key] = value;
  }
  return out;
}

/**
 * Scout's loose field-name match (`NamedArray.field_match`): equal, one
 * names the other in parentheses (`Alias` ~ `Older (Alias)`), or one is the
 * other followed by a space (`Parent` ~ `Parent (Alias)`).
 *
 * @param field a column name
 * @param name the name asked for
 * @returns whether they match
 */
export function fieldMatch(field: string, name: string): boolean {
  return field === name || field.includes(`(${name})`) || name.includes(`(${field})`) ||
    field.startsWith(name + " ") || name.startsWith(field + " ");
}

/**
 * The position of a named column: exact name first, then a digit string as
 * a position, then {@link fieldMatch}; -1 when none matches.
 *
 * @param fields all column names (key first)
 * @param name the name asked for
 * @returns its index
 */
export function fieldIndex(fields: readonly string[], name: string): number {
  const exact = fields.indexOf(name);
  if (exact >= 0) return exact;
  if (/^\d+$/.test(name)) {
    const n = Number.parseInt(name, 10);
    return n < fields.length ? n : -1;
  }
  return fields.findIndex((f) => fieldMatch(f, name));
}

const CHUNK = 1 << 20;
const NL = 0x0a;

function openTsv(file: string): number {
  try {
    return openSync(file, "r");
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new ScoutError(
      code === "ENOENT" ? "not_found" : "io",
      code === "ENOENT"
        ? `TSV file not found "${file}"`
        : `Cannot read "${file}": ${(e as Error).message}`,
      { file, cause: e },
    );
  }
}

/** Reads the next bytes; a failed read (the file is a directory…) names the file (R81-12). */
function readTsv(fd: number, buf: Uint8Array, file: string): number {
  try {
    return readSync(fd, buf, 0, buf.length, null);
  } catch (e) {
    throw fileError(file, e);
  }
}

/** Newlines in `bytes` before `end`. */
function newlinesBefore(bytes: Uint8Array, end: number): number {
  let count = 0;
  for (let i = bytes.indexOf(NL); i >= 0 && i < end; i = bytes.indexOf(NL, i + 1)) count++;
  return count;
}

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes whole lines (`block` ends at a line end, or at the end of the
 * file): a NUL byte or bytes that are not UTF-8 are an `invalid_input` error
 * naming the file and the line (`before` lines precede the block).
 */
function decodeLines(block: Uint8Array, file: string, before: number): string {
  const nul = block.indexOf(0);
  if (nul >= 0) {
    throw new ScoutError("invalid_input", `Not a TSV file (binary content) "${file}"`, {
      file,
      line: before + 1 + newlinesBefore(block, nul),
    });
  }
  try {
    return strict.decode(block);
  } catch {
    // the first line that is not UTF-8 (lines never split a character)
    let line = before + 1;
    for (let at = 0; at < block.length; line++) {
      const nl = block.indexOf(NL, at);
      const end = nl < 0 ? block.length : nl;
      try {
        strict.decode(block.subarray(at, end));
      } catch {
        break;
      }
      at = end + 1;
    }
    throw new ScoutError(
      "invalid_input",
      `The text of "${file}" is not UTF-8 (convert it, e.g. iconv -f latin1 -t utf-8)`,
      { file, line },
    );
  }
}

/**
 * Reads a text file line by line in chunks (sync). Stops early when `onLine`
 * returns false. Rejects binary content (a NUL byte) and text that is not
 * UTF-8, naming the line.
 *
 * @param file the file
 * @param onLine called with each line (no end-of-line characters) and its 1-based number
 * @param chunk bytes read at a time
 * @throws ScoutError `invalid_input` (binary, not UTF-8) with file and line; `not_found`, `io`
 */
export function eachLine(
  file: string,
  onLine: (line: string, n: number) => boolean | void,
  chunk: number = CHUNK,
): void {
  const fd = openTsv(file);
  try {
    const buf = new Uint8Array(chunk);
    let pending = new Uint8Array(0); // bytes after the last line end read
    let n = 0;
    let first = true;
    for (;;) {
      const got = readTsv(fd, buf, file);
      const data = pending.length === 0 ? buf.subarray(0, got) : concat(pending, buf, got);
      // whole lines only, so a character is never cut; the rest waits for the next chunk
      const cut = got === 0 ? data.length : data.lastIndexOf(NL) + 1;
      // binary: fail at once (pending was checked with the chunk before)
      if (buf.subarray(0, got).indexOf(0) >= 0) decodeLines(data, file, n);
      let text = decodeLines(data.subarray(0, cut), file, n);
      pending = data.slice(cut);
      if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (cut > 0) first = false;
      let start = 0;
      for (;;) {
        const nl = text.indexOf("\n", start);
        if (nl < 0) break;
        n++;
        const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        if (onLine(text.slice(start, end), n) === false) return;
        start = nl + 1;
      }
      if (got === 0) {
        const rest = text.slice(start);
        if (rest !== "") onLine(rest.endsWith("\r") ? rest.slice(0, -1) : rest, n + 1);
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
}

function concat(a: Uint8Array, b: Uint8Array, bLength: number): Uint8Array {
  const out = new Uint8Array(a.length + bLength);
  out.set(a);
  out.set(b.subarray(0, bLength), a.length);
  return out;
}

/**
 * Reads the header of a Scout TSV file: the `#:` options line and the field
 * names (the last of the leading `#` lines).
 *
 * @param file the TSV file
 * @returns the header
 * @throws ScoutError `invalid_input` (no header, an empty field name) naming file and line
 */
export function readTsvHeader(file: string): TsvHeader {
  let options: TsvOptions = {};
  let fieldsLine: string | null = null;
  let headerLine = 0;
  eachLine(file, (line, n) => {
    if (n === 1 && line.startsWith("#: ")) {
      options = parseTsvOptions(line.slice(3));
      return;
    }
    if (!line.startsWith("#")) return false;
    fieldsLine = line;
    headerLine = n;
  }, 1 << 13);
  const sep = typeof options.sep === "string" ? options.sep : "\t";
  if (fieldsLine === null) {
    throw new ScoutError(
      "invalid_input",
      `No header line "#Source${sep === "\t" ? "\\t" : sep}Target…" in "${file}"`,
      { file, line: 1 },
    );
  }
  const fields = (fieldsLine as string).slice(1).split(sep);
  const empty = fields.findIndex((f) => f.trim() === "");
  if (empty >= 0) {
    throw new ScoutError(
      "invalid_input",
      `Missing field name in column ${empty + 1} of the header of "${file}"`,
      { file, line: headerLine },
    );
  }
  if (fields.length < 2) {
    throw new ScoutError(
      "invalid_input",
      `The header of "${file}" names one column: an association needs a source and a target` +
        (sep === "\t" ? "" : ` (separator "${sep}")`),
      { file, line: headerLine },
    );
  }
  const type = typeof options.type === "string" ? options.type : "double";
  return { options, sep, type, fields, headerLine };
}

/** Which columns make an association. */
export interface AssociationColumns {
  /** Column of the source entity. */
  source: number;
  /** Column of the target entity. */
  target: number;
  /** Columns of the association's fields, in order. */
  info: number[];
}

/**
 * Streams the associations of a TSV file: one call per source–target pair,
 * with the values of the info columns. Multi-valued rows are zipped as
 * Scout does (`|`-separated values pair up by position; a column with one
 * value repeats it; a missing value is "").
 *
 * @param file the TSV file
 * @param header its header ({@link readTsvHeader})
 * @param cols the columns to use
 * @param onAssociation receives source, target and info values
 * @throws ScoutError `invalid_input` for a row with the wrong number of columns
 */
export function eachAssociation(
  file: string,
  header: TsvHeader,
  cols: AssociationColumns,
  onAssociation: (source: string, target: string, info: string[]) => void,
): void {
  const { sep, fields, headerLine } = header;
  const multi = header.type === "double" || header.type === "flat";
  const width = fields.length;
  const split = (v: string): string[] => (multi ? (v === "" ? [] : v.split("|")) : [v]);
  eachLine(file, (line, n) => {
    if (n <= headerLine || line === "") return;
    const row = line.split(sep);
    if (row.length !== width && !(header.type === "flat" && row.length > 1)) {
      throw new ScoutError(
        "invalid_input",
        `Row has ${row.length} columns, the header has ${width} in "${file}"`,
        { file, line: n },
      );
    }
    if (header.type === "flat") {
      const keys = split(row[0]!);
      const values = row.slice(1).flatMap(split);
      for (const k of keys) {
        for (const v of values) {
          const pair = cols.source === 0 ? [k, v] : [v, k];
          onAssociation(pair[0]!, pair[1]!, []);
        }
      }
      return;
    }
    zipRow(row.map(split), cols, onAssociation);
  });
}

function zipRow(
  values: string[][],
  cols: AssociationColumns,
  onAssociation: (source: string, target: string, info: string[]) => void,
): void {
  // The key column (0) is not zipped: each of its values gets every pair.
  const zipped = values.map((_, i) => i).filter((i) => i !== 0);
  const primary = cols.source === 0 ? cols.target : cols.target === 0 ? cols.source : cols.target;
  const max = Math.max(0, ...zipped.map((i) => values[i]!.length));
  const first = values[primary]!;
  const count = first.length === 1 && max > 1 ? max : first.length;
  const at = (col: number, i: number): string => {
    const list = values[col]!;
    return list.length === 1 ? list[0]! : list[i] ?? "";
  };
  const keys = values[0]!;
  for (const k of keys.length ? keys : []) {
    for (let i = 0; i < count; i++) {
      const src = cols.source === 0 ? k : at(cols.source, i);
      const tgt = cols.target === 0 ? k : at(cols.target, i);
      onAssociation(src, tgt, cols.info.map((c) => (c === 0 ? k : at(c, i))));
    }
  }
}
