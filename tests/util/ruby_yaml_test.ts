/**
 * Shared YAML read and written as Ruby's Psych does (R80-3). The expected
 * values were read by Ruby 3.1's `YAML.unsafe_load` (`Psych::ScalarScanner`).
 */
import assert from "node:assert/strict";
import { parseRubyYamlWithLines, stringifyRubyYaml } from "../../src/util/ruby_yaml.ts";

/** The value of YAML text as the product reads it (`parseRubyYamlWithLines`). */
const parseRubyYaml = (text: string): unknown => parseRubyYamlWithLines(text).value;

// plain scalar → what Psych reads
const PSYCH: [string, unknown][] = [
  ["yes", true],
  ["On", true],
  ["tRue", true],
  ["no", false],
  ["OFF", false],
  ["nO", false],
  ["y", "y"],
  ["n", "n"],
  ["Y", "Y"],
  ["~", null],
  ["NuLL", null],
  ["1_000", 1000],
  ["1,000", 1000],
  ["010", 8],
  ["09", "09"],
  ["0x1F", 31],
  ["-0b11", -3],
  ["0o10", "0o10"],
  ["1__0", "1__0"],
  ["1.5", 1.5],
  ["1,000.5", 1000.5],
  ["1.", 1],
  [".5", 0.5],
  ["1e3", "1e3"],
  ["1e+3", "1e+3"],
  ["1.0e3", "1.0e3"],
  ["1.0e+3", 1000],
  [".", "."],
  ["-.Inf", -Infinity],
  ["1:20", 4800],
  ["1:20:30", 4830],
  ["12:60", "12:60"],
  ["yes please", "yes please"],
];

Deno.test("parseRubyYaml reads plain scalars as Ruby's Psych does (YAML 1.1)", () => {
  for (const [text, want] of PSYCH) {
    assert.deepEqual((parseRubyYaml(`k: ${text}`) as { k: unknown }).k, want, text);
  }
  assert.ok(Number.isNaN((parseRubyYaml("k: .NAN") as { k: unknown }).k));
  // quoted scalars stay strings; a date is a date; the last duplicate key wins
  assert.deepEqual(parseRubyYaml("a: 'no'\nb: \"1_000\"\n"), { a: "no", b: "1_000" });
  assert.ok((parseRubyYaml("d: 2024-01-01") as { d: unknown }).d instanceof Date);
  assert.deepEqual(parseRubyYaml("a: 1\na: 2\n"), { a: 2 });
  assert.throws(() => parseRubyYaml("a: [unclosed\n"));
});

Deno.test("stringifyRubyYaml quotes the strings Psych would read as something else", () => {
  const value = {
    off: "no",
    flag: "On",
    n: "1_000",
    oct: "010",
    t: "1:20",
    y: "y",
    e: "1e3",
    b: true,
    i: 1000,
    f: 1.5,
    nil: null,
  };
  const text = stringifyRubyYaml(value);
  assert.match(text, /^"off": "no"$/m);
  assert.match(text, /^flag: "On"$/m);
  assert.match(text, /^n: "1_000"$/m);
  assert.match(text, /^y: y$/m);
  assert.match(text, /^e: 1e3$/m);
  assert.deepEqual(parseRubyYaml(text), value);
  assert.equal(stringifyRubyYaml([1e-7, 2.0e21, 3]), "- 1.0e-7\n- 2000000000000000000000\n- 3\n");
});
