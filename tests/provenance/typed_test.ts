/** The typed-array helpers of `src/provenance/typed.ts` shared by the report's stages. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { sortDistinct, sortedHas } from "../../src/provenance/typed.ts";

Deno.test("sortDistinct and sortedHas agree with a Set, in arrays and typed arrays", () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }),
      fc.integer({ min: -60, max: 60 }),
      (xs, probe) => {
        const expected = [...new Set(xs)].sort((a, b) => a - b);
        const list = [...xs];
        list.length = sortDistinct(list);
        const typed = Int32Array.from(xs);
        const n = sortDistinct(typed);
        assert.deepEqual(list, expected);
        assert.deepEqual([...typed.subarray(0, n)], expected);
        return sortedHas(list, probe) === expected.includes(probe) &&
          sortedHas(typed.subarray(0, n), probe) === expected.includes(probe);
      },
    ),
    { numRuns: 2000 },
  );
  assert.equal(sortedHas([], 0), false);
});
