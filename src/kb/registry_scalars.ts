/**
 * A registry's unquoted YAML 1.1 booleans and nulls: older scout-ai wrote
 * database names and descriptions without quotes, and `on:` or
 * `description: no` read (as Psych reads them, kept) as `true` or `false`.
 * Each such scalar is named once per warning sink with its file and line and the
 * quoting that keeps the text.
 *
 * @module
 */
import { isMap, isScalar, isSeq, parseDocument, type Scalar } from "yaml";
import { RUBY_YAML_OPTIONS } from "../util/ruby_yaml.ts";
import { warnOnce } from "../util/warn_once.ts";

/** An unquoted scalar read as a boolean or null, where it is, and what it names. */
export interface ReadAsBoolean {
  /** 1-based line. */
  line: number;
  /** The text as written (`on`, `no`, `~`). */
  text: string;
  /** What it was read as. */
  value: boolean | null;
  /** A database name, or a database's description. */
  what: "name" | "description";
  /** The database (as read: `true` for `on:`). */
  database: string;
}

// a plain scalar (not quoted, not a block) that YAML 1.1 read as a boolean or null
function readAsBoolean(node: unknown): node is Scalar {
  return isScalar(node) && node.type === "PLAIN" && node.source !== "" &&
    (typeof node.value === "boolean" || node.value === null);
}

/**
 * The unquoted booleans and nulls among a registry's database names and
 * descriptions (`name: [path, {description: …}]`, `:description` too).
 *
 * @param text the registry's YAML text (already known to parse)
 * @returns each one found, in file order
 */
export function booleanScalars(text: string): ReadAsBoolean[] {
  const doc = parseDocument(text, RUBY_YAML_OPTIONS);
  const lineAt = (n: Scalar) => text.slice(0, n.range?.[0] ?? 0).split("\n").length;
  const out: ReadAsBoolean[] = [];
  if (!isMap(doc.contents)) return out;
  for (const pair of doc.contents.items) {
    const key = pair.key;
    const database = String(isScalar(key) ? key.value : key).replace(/^:/, "");
    if (readAsBoolean(key)) {
      out.push({
        line: lineAt(key),
        text: key.source,
        value: key.value as boolean | null,
        what: "name",
        database,
      });
    }
    const opts = isSeq(pair.value) ? pair.value.items[1] : undefined;
    if (!isMap(opts)) continue;
    for (const o of opts.items) {
      const name = isScalar(o.key) ? String(o.key.value).replace(/^:/, "") : "";
      if (name !== "description" || !readAsBoolean(o.value)) continue;
      const v = o.value;
      out.push({
        line: lineAt(v),
        text: v.source,
        value: v.value as boolean | null,
        what: "description",
        database,
      });
    }
  }
  return out;
}

/**
 * Warns (once per sink and line: see `warnOnce`) about each of {@link booleanScalars}.
 *
 * @param text the registry's YAML text
 * @param file its path, named in the warnings
 */
export function warnBooleanScalars(text: string, file: string): void {
  for (const b of booleanScalars(text)) {
    const read = String(b.value);
    const said = b.what === "name"
      ? `the database name ${b.text} is unquoted, so it is read as YAML 1.1's ${read} ` +
        `(as the Ruby Scout reads it): the database is named "${read}"`
      : `the description of "${b.database}", ${b.text}, is unquoted, so it is read as YAML 1.1's ` +
        `${read} (as the Ruby Scout reads it): the database has no description from the registry`;
    const quoted = b.what === "name" ? `"${b.text}":` : `description: "${b.text}"`;
    warnOnce(
      `${file}:${b.line} yaml11`,
      `${file}:${b.line}: ${said}. To keep the text, quote it: ${quoted}`,
    );
  }
}
