/**
 * A tool defined from a zod schema keeps a parameter named `__proto__` (or
 * `constructor`, `toString`) in its JSON Schema under Bun, the binary's
 * runtime, as under Deno (R116-4): the schema's copy built its objects key by
 * key in a plain `{}`, where Bun's `__proto__` setter took the property
 * schema, so `properties` lacked it while `required` still named it — a schema
 * contradicting itself, sent to the provider.
 */
import assert from "node:assert/strict";
import { runScript, RUNTIMES } from "../support/runtimes.ts";

const SCRIPT = `import { z } from "zod";
import { defineTool } from "./src/tools/define.ts";
const t = defineTool({
  name: "w",
  schema: z.object({ ["__proto__"]: z.string(), toString: z.number().int(), n: z.number().int() }),
  run: () => "",
});
const p = t.definition.function.parameters;
console.log(JSON.stringify({
  keys: Object.keys(p.properties),
  proto: Object.getPrototypeOf(p.properties) === Object.prototype,
  required: p.required,
  json: JSON.stringify(p.properties),
}));`;

Deno.test("defineTool keeps parameters named __proto__ and toString under Bun and Deno (R116-4)", async () => {
  for (const runtime of RUNTIMES) {
    // before, under Bun: keys ["toString", "n"], required still ["__proto__", "toString", "n"]
    assert.deepEqual(await runScript(runtime, SCRIPT), {
      keys: ["__proto__", "toString", "n"],
      proto: true,
      required: ["__proto__", "toString", "n"],
      json: '{"__proto__":{"type":"string"},"toString":{"type":"integer"},"n":{"type":"integer"}}',
    }, runtime);
  }
});
