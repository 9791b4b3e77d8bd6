/**
 * Job names over 150 characters are shortened as Ruby's
 * `Path.sanitize_filename(id, 150)` does (scout-essentials path/util.rb):
 * extension `/(\..{2,9})$/` (Ruby's `.` is any character but LF, its `$` also
 * matches before a LF), lengths in characters (code points). The expected
 * names below came from running Ruby 3.1 with scout-essentials (R85-4).
 */
import assert from "node:assert/strict";
import { truncateJobName } from "../../src/workflow/job.ts";

const E = "\u{1F600}"; // 😀, two UTF-16 units, one Ruby character

/** [input, Ruby's result tail, Ruby's result length in characters]. From Ruby. */
const RUBY: [string, string, number][] = [
  ["a".repeat(150) + ".tar.gz", "a".repeat(9) + "--157--98eca.tar.gz", 150],
  ["a".repeat(150) + ".x.y", "a".repeat(12) + "--154--1fc7d.x.y", 150],
  ["a".repeat(148) + ".b\nc", "a".repeat(16) + "--152--a1e11", 150],
  ["a".repeat(148) + ".bcd\nxyz", "a".repeat(12) + "--156--1c804.bcd", 150],
  ["a".repeat(150) + ".b\rcd", "a".repeat(11) + "--155--d6829.b\rcd", 150],
  ["a".repeat(150) + "." + E + E, "a".repeat(13) + "--153--dcd35." + E + E, 150],
  [E.repeat(151), E.repeat(16) + "--151--09de5", 150],
  [E.repeat(160) + ".json", E.repeat(11) + "--165--e3148.json", 150],
  ["a".repeat(151) + ".toolongextension", "a".repeat(18) + "--168--589d4", 150],
];

Deno.test("long job names are shortened as Ruby's sanitize_filename (R85-4)", () => {
  for (const [input, tail, len] of RUBY) {
    const got = truncateJobName(input);
    assert.ok(got.endsWith(tail), `${JSON.stringify(input)} → ${JSON.stringify(got)}`);
    assert.equal([...got].length, len);
    // the head is the input's first characters, never half a surrogate pair
    const head = [...got].slice(0, len - [...tail].length).join("");
    assert.ok(input.startsWith(head));
  }
});

Deno.test("names of at most 150 characters stay, counted in characters not UTF-16 units (R85-4)", () => {
  assert.equal(truncateJobName(E.repeat(100)), E.repeat(100)); // Ruby: unshortened
  assert.equal(truncateJobName(E.repeat(150)), E.repeat(150));
  assert.equal(truncateJobName("short"), "short");
});
