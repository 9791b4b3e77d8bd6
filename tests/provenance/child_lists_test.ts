import assert from "node:assert/strict";
import fc from "fast-check";
import { addChild, childLists, childPairs } from "../../src/provenance/child_lists.ts";

Deno.test("child lists: each node's children in the order their pairs came, repeats kept", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }).chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3000 }),
        )
      ),
      ([n, pairs]) => {
        const c = childPairs();
        const expected: number[][] = Array.from({ length: n }, () => []);
        for (const [p, ch] of pairs) {
          addChild(c, p, ch);
          expected[p]!.push(ch);
        }
        const lists = childLists(n, c);
        assert.equal(lists.nodes, n);
        const got = expected.map((
          _,
          v,
        ) => [...lists.list.subarray(lists.start[v], lists.start[v + 1])]);
        assert.deepEqual(got, expected);
      },
    ),
  );
});
