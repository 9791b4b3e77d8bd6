/**
 * A chat's options and a `task:` line's inputs named `__proto__` are kept
 * like any, under Bun (the binary's runtime) as under Deno (R112-5
 * follow-up): assigned into a plain `{}`, Bun's `__proto__` setter took the
 * value (a string: dropped without a word; an object: made the record's
 * prototype), so `option: __proto__ x`, `sticky_option: __proto__ x` and
 * `task: WF t __proto__=x` were lost in the binary.
 */
import assert from "node:assert/strict";
import { runScript, RUNTIMES } from "../support/runtimes.ts";

const SCRIPT = `import { extractOptions } from "./src/chat/options.ts";
import { parseOptions } from "./src/chat/option_text.ts";
import { markWrittenAt } from "./src/chat/written_at.ts";
const at = (role, content, line) => markWrittenAt({ role, content }, { file: "q.chat", line });
const plain = extractOptions([
  at("option", "__proto__ x", 1), at("sticky_option", "constructor y", 2), at("user", "hi", 3),
]);
const sticky = extractOptions([
  at("sticky_option", "__proto__ s", 1), at("assistant", "ok", 2), at("option", "toString t", 3),
]);
const own = (r) => ({ keys: Object.keys(r), proto: Object.getPrototypeOf(r) === Object.prototype });
const inputs = parseOptions("__proto__=x constructor=3 toString=/a/");
console.log(JSON.stringify({
  plain: { ...own(plain.options), json: JSON.stringify(plain.options) },
  lines: { ...own(plain.lines), line: plain.lines["__proto__"]?.line ?? null },
  sticky: JSON.stringify(sticky.options),
  inputs: { ...own(inputs), json: JSON.stringify(inputs) },
}));`;

Deno.test("extractOptions and parseOptions keep keys named __proto__, constructor… under Bun and Deno", async () => {
  for (const runtime of RUNTIMES) {
    // before, under Bun: plain keys ["constructor"], lines without __proto__'s, sticky
    // {"toString":"t"}, inputs keys ["constructor", "toString"]
    assert.deepEqual(await runScript(runtime, SCRIPT), {
      plain: {
        keys: ["constructor", "__proto__"],
        proto: true,
        json: '{"constructor":"y","__proto__":"x"}',
      },
      lines: { keys: ["constructor", "__proto__"], proto: true, line: 1 },
      sticky: '{"__proto__":"s","toString":"t"}',
      inputs: {
        keys: ["__proto__", "constructor", "toString"],
        proto: true,
        json: '{"__proto__":"x","constructor":3,"toString":{}}',
      },
    }, runtime);
  }
});
