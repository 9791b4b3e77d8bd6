import assert from "node:assert/strict";
import fc from "fast-check";
import { editDistance } from "../../src/util/edit_distance.ts";

Deno.test("editDistance counts inserts, deletes, changes and swaps of neighbours", () => {
  assert.equal(editDistance("", ""), 0);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("abc", ""), 3);
  assert.equal(editDistance("signal", "signal"), 0);
  assert.equal(editDistance("singal", "signal"), 1); // a swap of neighbours is one edit
  assert.equal(editDistance("strem", "stream"), 1);
  assert.equal(editDistance("whisk", "whsk"), 1);
  assert.equal(editDistance("cake", "bake"), 1);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("ca", "abc"), 3); // optimal string alignment: no edit of a swapped pair
});

Deno.test("editDistance is symmetric, zero only for equal names, at most the longer length", () => {
  fc.assert(fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
    const d = editDistance(a, b);
    assert.equal(d, editDistance(b, a));
    assert.equal(d === 0, a === b);
    assert.ok(d <= Math.max(a.length, b.length));
    assert.ok(d >= Math.abs(a.length - b.length));
  }));
});
