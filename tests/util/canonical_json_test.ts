/**
 * `canonicalJson`, the one sorted-key JSON of the cache keys (llm/) and the
 * repeated-call keys (prompt/): keys sorted at every level, and otherwise
 * what `JSON.stringify` writes — a Date as its ISO text, undefined and
 * function members dropped, unwritable values as `null`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { canonicalJson } from "../../src/util/canonical_json.ts";
import { canonicalJson as llmCanonicalJson } from "../../src/llm/mod.ts";

Deno.test("canonicalJson: keys sorted at every level, arrays in order, a Date as JSON writes it", () => {
  assert.equal(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }, 3] }), '{"a":[{"c":2,"d":1},3],"b":1}');
  const when = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));
  assert.equal(canonicalJson({ at: when }), '{"at":"2025-01-02T03:04:05.000Z"}');
  assert.equal(canonicalJson([when]), JSON.stringify([when]));
  assert.equal(canonicalJson({ at: new Date(NaN) }), '{"at":null}');
  assert.equal(canonicalJson({ u: undefined, f: () => 1, s: Symbol("s"), n: null }), '{"n":null}');
  assert.equal(canonicalJson([undefined, () => 1]), "[null,null]");
  assert.equal(canonicalJson(undefined), "null");
  assert.equal(llmCanonicalJson, canonicalJson, "llm's public canonicalJson is this one");
});

Deno.test("property: canonicalJson is JSON.stringify of the value with its keys sorted", () => {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as never)[k])]))
      : v;
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      assert.equal(canonicalJson(v), JSON.stringify(sorted(v)));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("canonicalJson writes a __proto__ key under Bun (the binary's runtime) as under Deno", () => {
  const root = join(import.meta.dirname!, "../..");
  const texts = ['{"b":1,"__proto__":{"x":1}}', '{"b":1,"__proto__":{"x":2}}', '{"__proto__":[1]}'];
  const script = `import { canonicalJson } from "./src/util/canonical_json.ts";
for (const t of ${JSON.stringify(texts)}) console.log(canonicalJson(JSON.parse(t)));`;
  const r = spawnSync(join(root, "tools/node_modules/.bin/bun"), ["-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  const deno = texts.map((t) => canonicalJson(JSON.parse(t)));
  assert.deepEqual(deno, [
    '{"__proto__":{"x":1},"b":1}',
    '{"__proto__":{"x":2},"b":1}',
    '{"__proto__":[1]}',
  ]);
  // before, under Bun: `{"b":1}` twice and `{}` (the copy's prototype set): one cache key
  // for two tool calls differing in that argument, another than the source's
  assert.deepEqual(r.stdout.trim().split("\n"), deno);
});
