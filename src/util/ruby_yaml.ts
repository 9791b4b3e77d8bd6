/**
 * YAML as Ruby Scout reads it: the files both implementations share
 * (endpoint files `etc/AI/<name>.yaml`, a knowledge base's
 * `config/registry`, deploy rules, the price table) are read by Ruby's Psych,
 * which speaks YAML 1.1: `yes`/`on` are true, `no`/`off` false, `1_000` and
 * `1,000` are 1000, `010` is 8. The `yaml` package's defaults are YAML 1.2
 * (all of those stay strings), so every shared file goes through here: the
 * package's 1.1 schema with its plain-scalar rules replaced by Psych's
 * (`Psych::ScalarScanner`): booleans in any letter case but no `y`/`n`, floats
 * only with a dot (and a signed exponent), Psych's sexagesimal sums. Duplicate
 * keys are allowed (the last wins), as in Ruby. Writing uses the same rules,
 * so a string such as `"no"` is quoted and Ruby reads it back as a string.
 *
 * @module
 */
import { type Document, isMap, isScalar, parseDocument, stringify, visit } from "yaml";
import type { Scalar, ScalarTag, Tags } from "yaml";
import { entryText } from "./yaml_entry_text.ts";

const TRUE = /^(?:yes|true|on)$/i;
const FALSE = /^(?:no|false|off)$/i;
const NULL = /^(?:~|null)?$/i;
const INT =
  /^(?:[-+]?0b[01_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|[-+]?0x[0-9a-fA-F_,]+)$/;
const FLOAT = /^(?![-+]?\.$)[-+]?(?:[0-9][0-9_,]*)?\.[0-9]*(?:[eE][-+][0-9]+)?$/;
const SEXAGESIMAL = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9]){1,2}(?:\.[0-9_]*)?$/;
const SPECIAL_FLOAT = /^(?:[-+]?\.inf|\.nan)$/i;

function intValue(text: string): number | string {
  const s = text.replace(/[,_]/g, "");
  const neg = s.startsWith("-");
  const body = s.replace(/^[-+]/, "");
  const [digits, radix] = body.startsWith("0b")
    ? [body.slice(2), 2]
    : body.startsWith("0x")
    ? [body.slice(2), 16]
    : body.length > 1 && body.startsWith("0")
    ? [body.slice(1), 8]
    : [body, 10];
  if (digits === "") return text; // Ruby's Integer() would raise: keep the text
  const n = parseInt(digits, radix);
  return neg ? -n : n;
}

// Psych sums the parts with weights 60^|i-2| (so `1:20` is 4800, not 80).
function sexagesimalValue(text: string): number {
  const parts = text.split(":");
  let total = 0;
  parts.forEach((p, i) => {
    const n = i === parts.length - 1 && p.includes(".")
      ? parseFloat(p.replace(/_/g, ""))
      : parseInt(p.replace(/_/g, ""), 10);
    total += n * 60 ** Math.abs(i - 2);
  });
  return total;
}

function floatText(v: number): string {
  if (Number.isNaN(v)) return ".nan";
  if (!Number.isFinite(v)) return v > 0 ? ".inf" : "-.inf";
  const s = String(v);
  if (s.includes(".")) return s;
  return s.includes("e") ? s.replace("e", ".0e") : `${s}.0`;
}

function scalar(
  tag: string,
  test: RegExp,
  resolve: (s: string) => unknown,
  identify: (v: unknown) => boolean,
  text: (v: unknown) => string,
): ScalarTag {
  return {
    tag,
    test,
    default: true,
    resolve,
    identify,
    stringify: (item: Scalar) => text(item.value),
  };
}

const NS = "tag:yaml.org,2002:";

/** Psych's plain scalars, in the order it tries them (before the package's timestamps). */
const PSYCH_TAGS: ScalarTag[] = [
  scalar(`${NS}null`, NULL, () => null, (v) => v == null, () => "null"),
  scalar(`${NS}bool`, TRUE, () => true, (v) => v === true, () => "true"),
  scalar(`${NS}bool`, FALSE, () => false, (v) => v === false, () => "false"),
  scalar(`${NS}int`, SEXAGESIMAL, sexagesimalValue, () => false, String),
  scalar(
    `${NS}float`,
    SPECIAL_FLOAT,
    (s) => s.toLowerCase() === ".nan" ? NaN : s.startsWith("-") ? -Infinity : Infinity,
    () => false,
    (v) => floatText(v as number),
  ),
  scalar(
    `${NS}float`,
    FLOAT,
    (s) => Number(s.replace(/[,_]|\.([Ee]|$)/g, "$1")),
    (v) => typeof v === "number" && !Number.isInteger(v),
    (v) => floatText(v as number),
  ),
  scalar(
    `${NS}int`,
    INT,
    intValue,
    (v) => typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v)),
    (v) => typeof v === "number" && !Number.isSafeInteger(v) ? BigInt(v).toString() : String(v),
  ),
];

const REPLACED = new Set(["null", "bool", "int", "float"].map((t) => NS + t));

function psychTags(tags: Tags): Tags {
  const kept = tags.filter((t) => typeof t === "string" || !REPLACED.has(t.tag) || !t.default);
  const at = kept.findIndex((t) => typeof t !== "string" && t.tag === `${NS}str`) + 1;
  return [...kept.slice(0, at), ...PSYCH_TAGS, ...kept.slice(at)];
}

/** The `yaml` package options that read and write YAML as Ruby's Psych does. */
export const RUBY_YAML_OPTIONS = {
  version: "1.1",
  customTags: psychTags,
  uniqueKeys: false,
} as const;

/**
 * The document of `text`, its first syntax error thrown; also an alias
 * inside the node it names (`a: &x [*x]`): Psych builds a recursive value,
 * which no reader of ours can use (JSON.stringify and our walks overflow),
 * so it is an error at the alias's line ([TS-FIX], R88-7).
 */
function readDocument(text: string): Document.Parsed {
  const doc = parseDocument(text, RUBY_YAML_OPTIONS);
  if (doc.errors.length) throw doc.errors[0];
  let cyclic: { name: string; offset: number } | undefined;
  visit(doc, {
    Alias(_key, node, path) {
      const target = node.resolve(doc);
      if (target && (path as readonly unknown[]).includes(target)) {
        cyclic = { name: node.source, offset: node.range?.[0] ?? 0 };
        return visit.BREAK;
      }
    },
  });
  if (cyclic) {
    const line = text.slice(0, cyclic.offset).split("\n").length;
    const e = new Error(`Recursive alias *${cyclic.name}: it is inside the node it names`);
    throw Object.assign(e, { linePos: [{ line, col: 1 }] });
  }
  return doc;
}

/**
 * Writes a value as YAML that Ruby's Psych reads back as the same value
 * (strings that Psych would read as booleans, numbers or nil are quoted).
 *
 * @param value plain data
 * @returns the YAML text
 *
 * @example
 * ```ts
 * import { stringifyRubyYaml } from "./ruby_yaml.ts";
 * stringifyRubyYaml({ a: "no" }); // 'a: "no"\n'
 * ```
 */
export function stringifyRubyYaml(value: unknown): string {
  return stringify(value, RUBY_YAML_OPTIONS);
}

/**
 * YAML text parsed as Ruby's `YAML.unsafe_load` would (plain scalars by
 * Psych's rules; unknown `!ruby/…` tags read as plain YAML), and where each
 * of its keys is.
 */
export interface RubyYamlWithLines {
  /** The value (`undefined`/`null` for an empty document). */
  value: unknown;
  /**
   * The 1-based line of the key at `path` (a list of mapping keys from the
   * top), or of the value when the last step is not a mapping key; undefined
   * when the path is not in the document.
   */
  lineOf(path: readonly string[]): number | undefined;
  /**
   * The text of the scalar at `path` as written (before Psych's rules read
   * it: `30:00` rather than 108000, quotes removed); undefined when the path
   * is not a scalar of the document.
   */
  sourceOf(path: readonly string[]): string | undefined;
  /**
   * The top-level entry `key` as text that stands alone (`yaml_entry_text.ts`:
   * the file's own bytes where they can be); undefined when there is none.
   */
  entryTextOf(key: string): string | undefined;
}

/**
 * Parses YAML text as Ruby's `YAML.unsafe_load` would (plain scalars by
 * Psych's rules; unknown `!ruby/…` tags read as plain YAML) and keeps the
 * document, so an error about a value can name its line.
 *
 * @param text the YAML text
 * @returns the value and a line lookup
 * @throws the `yaml` package's `YAMLParseError` on a syntax error, an error
 *   with `linePos` on a recursive alias (see `yamlErrorParts`)
 *
 * @example
 * ```ts
 * import { parseRubyYamlWithLines } from "./ruby_yaml.ts";
 * parseRubyYamlWithLines("a:\n  b: 1\n").lineOf(["a", "b"]); // 2
 * ```
 */
export function parseRubyYamlWithLines(text: string): RubyYamlWithLines {
  const doc = readDocument(text);
  const lineAt = (offset: number) => text.slice(0, offset).split("\n").length;
  // the last pair of a key path: duplicate keys are allowed and the last one wins
  const lastPair = (path: readonly string[]) => {
    if (path.length === 0) return undefined;
    const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
    if (!isMap(parent)) return undefined;
    const last = path[path.length - 1];
    return parent.items.findLast((p) => isScalar(p.key) && String(p.key.value) === last);
  };
  return {
    value: doc.toJS(),
    lineOf(path) {
      const at = (lastPair(path)?.key as Scalar | undefined)?.range?.[0];
      return at === undefined ? undefined : lineAt(at);
    },
    sourceOf(path) {
      const node = lastPair(path)?.value;
      return isScalar(node) ? node.source : undefined;
    },
    entryTextOf(key) {
      const pair = lastPair([key]);
      return pair && isMap(doc.contents)
        ? entryText(doc, text, (doc.contents.items as unknown[]).indexOf(pair))
        : undefined;
    },
  };
}
