/**
 * Ages of the store-cleaning commands (R120-1): Scout's time spans — units
 * `s sec m min h d w mo y` run together, a bare number of days, a clock —
 * and everything else refused (Scout reads `abc` as 0: every job old).
 */
import assert from "node:assert/strict";
import { ageProblem, formatAge, formatBytes, parseAge } from "../../src/util/age.ts";

const S = 1000;
const D = 86_400 * S;

Deno.test("parseAge reads Scout's units, sums, bare days and clocks", () => {
  const cases: [string, number][] = [
    ["30d", 30 * D],
    ["30", 30 * D],
    ["0", 0],
    ["12h", 12 * 3_600 * S],
    ["90m", 90 * 60 * S],
    ["5min", 5 * 60 * S],
    ["45s", 45 * S],
    ["10sec", 10 * S],
    ["2w", 14 * D],
    ["3mo", 93 * D],
    ["1y", 365 * D],
    ["1d12h", 1.5 * D],
    [" 1d 12h ", 1.5 * D],
    ["1mo1m", 31 * D + 60 * S],
    ["12:00:00", 12 * 3_600 * S],
    ["1:30", 90 * S],
  ];
  for (const [text, ms] of cases) assert.equal(parseAge(text), ms, text);
});

Deno.test("parseAge refuses what is no age", () => {
  for (const text of ["", "abc", "30days", "1.5d", "-3d", "3x", "d", "1:2:3:4", "30d!", "1e3"]) {
    assert.equal(parseAge(text), null, JSON.stringify(text));
  }
});

Deno.test("parseAge refuses an age too large to hold exactly, in either form (R163-3)", () => {
  const huge = "99999999999999999999";
  const endless = "9".repeat(400); // Number() of it is Infinity
  for (
    const text of [
      huge,
      `${huge}s`,
      `${endless}d`,
      `${huge}:0`,
      `${endless}:0`,
      `0:${huge}`,
      `1:0:${huge}`,
    ]
  ) {
    assert.equal(parseAge(text), null, text.slice(0, 30));
  }
  assert.equal(
    parseAge("150119987579:0"),
    150119987579 * 60 * S,
    "the largest whole minutes in range",
  );
  assert.equal(parseAge("150119987580:0"), null, "a minute more");
});

Deno.test("parseAge refuses what Scout reads as another age, and ageProblem says why (R124-4)", () => {
  // Scout's Misc.timespan scans (\d+)(\w*): "12 h" is 12 days there, "1.5d" 1 + 5 days
  for (const text of ["12 h", "1 d", "2 w 3d", "1d 12 h", "1.5d", "0,5h"]) {
    assert.equal(parseAge(text), null, text);
    assert.ok(ageProblem(text) !== null, text);
  }
  assert.match(ageProblem("12 h")!, /"12 h" is 12 days there\): write 12h$/);
  assert.match(ageProblem("1.5d")!, /Scout reads "1\.5" as 1 and 5, added/);
  assert.equal(ageProblem("abc"), null, "nothing particular to say");
  assert.equal(parseAge("1d 12h"), 1.5 * D, "read alike by Scout");
  assert.equal(parseAge("1 12h"), 1.5 * D, "a bare number, then 12 hours, in Scout too");
});

Deno.test("formatAge and formatBytes print the largest unit", () => {
  assert.equal(formatAge(45 * D + 3_600 * S), "45d");
  assert.equal(formatAge(3 * 3_600 * S), "3h");
  assert.equal(formatAge(59 * S), "59s");
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(formatBytes(3 * 1024 * 1024), "3.0 MiB");
});
