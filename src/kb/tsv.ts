/**
 * Scout's TSV format as association records (`agents.md` §6.2): an options
 * line `#: :sep=,#:type=:double`, a header `#Source\tTarget\tfield…` (the
 * last of the leading `#` lines), rows split on the separator, `|` between
 * the values of a multi-valued (`:double`/`:flat`) column, zipped per
 * association as Scout does (a one-value column repeats). Rows stream from
 * the file in chunks, so a large file never sits in memory as one string.
 * Bad input — a binary file, a missing header, an empty field name, a row
 * with the wrong number of columns — is a `invalid_input` error naming the
 * file and line.
 *
 * @module
 */
import { closeSync, openSync, readSync } from "node:fs";
import { ScoutError } from "../errors.ts";

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

/**
 * Reads a text file line by line in chunks (sync). Stops early when `onLine`
 * returns false. Rejects binary content (a NUL byte).
 *
 * @param file the file
 * @param onLine called with each line (no end-of-line characters) and its 1-based number
 * @param chunk bytes read at a time
 */
export function eachLine(
  file: string,
  onLine: (line: string, n: number) => boolean | void,
  chunk: number = CHUNK,
): void {
  let fd: number;
  try {
    fd = openSync(file, "r");
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
  try {
    const buf = new Uint8Array(chunk);
    const decoder = new TextDecoder("utf-8");
    let rest = "";
    let n = 0;
    let first = true;
    for (;;) {
      const got = readSync(fd, buf, 0, chunk, null);
      if (got > 0 && buf.subarray(0, got).includes(0)) {
        throw new ScoutError("invalid_input", `Not a TSV file (binary content) "${file}"`, {
          file,
          line: n + 1 + (rest.match(/\n/g)?.length ?? 0),
        });
      }
      let text = got > 0
        ? decoder.decode(buf.subarray(0, got), { stream: true })
        : decoder.decode();
      if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
      text = rest + text;
      let start = 0;
      for (;;) {
        const nl = text.indexOf("\n", start);
        if (nl < 0) break;
        n++;
        const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        if (onLine(text.slice(start, end), n) === false) return;
        start = nl + 1;
      }
      rest = text.slice(start);
      if (got === 0) {
        if (rest !== "") onLine(rest.endsWith("\r") ? rest.slice(0, -1) : rest, n + 1);
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
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
