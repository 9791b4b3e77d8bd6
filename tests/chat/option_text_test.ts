import assert from "node:assert/strict";
import fc from "fast-check";
import { parseOptions, printOptions } from "../../mod.ts";

Deno.test("parseOptions §9.1 conversions", () => {
  assert.deepEqual(
    parseOptions(
      "a= b=:sym c=/x+y/ d='q' e=42 f=.5 g=1.25 h=true i=false j=text k=-1 l=\"two words\"",
    ),
    {
      a: true,
      b: "sym",
      c: /x+y/,
      d: "q",
      e: 42,
      f: 0.5,
      g: 1.25,
      h: true,
      i: false,
      j: "text",
      k: "-1",
      l: "two words",
    },
  );
});

Deno.test("parseOptions: lists are split, trimmed and unconverted", () => {
  assert.deepEqual(parseOptions("list=1,2,3"), { list: ["1", "2", "3"] });
  assert.deepEqual(parseOptions('k="a, b"'), { k: ["a", "b"] }, "a quoted value is split too");
  assert.deepEqual(parseOptions("k=a,b,"), { k: ["a", "b"] }, "trailing empty part dropped");
});

Deno.test("parseOptions D20: quoted list elements kept (Ruby: [one, two])", () => {
  const ruby = { list: ["one", "two"] };
  const port = parseOptions('list=one,two,"and three"');
  assert.deepEqual(port, { list: ["one", "two", "and three"] });
  assert.notDeepEqual(port, ruby);
});

Deno.test('parseOptions D20: x="" is "" (Ruby: true)', () => {
  assert.deepEqual(parseOptions('x=""'), { x: "" });
  assert.deepEqual(parseOptions("x="), { x: true }, "unquoted empty stays true");
});

Deno.test("parseOptions: non-pairs ignored, last duplicate wins, unicode keys", () => {
  assert.deepEqual(parseOptions("Workflow task n=1 junk n=2 año=x"), { n: 2, "año": "x" });
  assert.deepEqual(parseOptions(""), {});
});

Deno.test("printOptions §9.2", () => {
  assert.equal(
    printOptions({ n: 3, s: "a b", e: "", l: ["x", "y z"], b: true, r: /a.b/, z: null }),
    'n=3 s="a b" e="" l=x,"y z" b=true r=/a.b/ z=""',
  );
  assert.equal(printOptions({}), "");
});

Deno.test("property: printOptions → parseOptions round-trips simple values", () => {
  const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
  const word = fc.stringMatching(/^[a-zA-Z][a-zA-Z ]{0,10}[a-zA-Z]$/);
  const value = fc.oneof(
    fc.nat({ max: 1e9 }),
    fc.boolean(),
    word,
    fc.array(fc.stringMatching(/^[a-z][a-z ]{0,5}[a-z]$/), { minLength: 2, maxLength: 4 }),
  );
  fc.assert(
    fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (opts) => {
      const back = parseOptions(printOptions(opts));
      const expected = Object.fromEntries(
        Object.entries(opts).map(([k, v]) => [k, v === "true" ? true : v === "false" ? false : v]),
      );
      assert.deepEqual(back, expected);
    }),
    { numRuns: 200 },
  );
});
