/**
 * A call's argument named `__proto__` stays in its compacted copy, under Bun
 * (the binary's runtime) as under Deno (R112-5 follow-up): compaction built
 * the shortened arguments in a plain `{}`, where Bun's `__proto__` setter
 * took the value as the copy's prototype, so the model was sent the call
 * without that argument once the strategies shortened it.
 */
import assert from "node:assert/strict";
import { runScript, RUNTIMES } from "../support/runtimes.ts";

const SCRIPT = `import { preparePrompt } from "./src/prompt/prepare.ts";
const args = JSON.parse('{"__proto__": {"keep": true}, "constructor": "c", "q": "' + "x".repeat(300) + '"}');
const call = { name: "f", arguments: args, id: "c1" };
const messages = [
  { role: "user", content: "go" },
  { role: "function_call", content: JSON.stringify(call) },
  { role: "function_call_output", content: JSON.stringify({ name: "f", content: "y".repeat(500), id: "c1" }) },
  // a newer pair: the epoch strategy keeps the newest whole
  { role: "function_call", content: JSON.stringify({ name: "f", arguments: {}, id: "c2" }) },
  { role: "function_call_output", content: JSON.stringify({ name: "f", content: "z", id: "c2" }) },
];
// settings under which each strategy compacts the one pair
const settings = {
  shorten_tools: { maxToolChars: 0, fullToolOutputs: 0 },
  shorten_tools_epoch: { epochToolCallThreshold: 0, epochFullToolCalls: 0, epochSize: 1 },
};
const seen = {};
for (const [strategy, config] of Object.entries(settings)) {
  const out = preparePrompt(messages, strategy, config);
  const first = out.find((m) => m.role === "function_call" && JSON.parse(m.content).id === "c1");
  const sent = JSON.parse(first.content).arguments;
  seen[strategy] = { changed: first !== messages[1], keys: Object.keys(sent), proto: sent["__proto__"] ?? null };
}
console.log(JSON.stringify(seen));`;

Deno.test("both strategies keep a call's argument named __proto__ in its compacted copy, under Bun and Deno", async () => {
  const kept = { changed: true, keys: ["__proto__", "constructor", "q"], proto: { keep: true } };
  for (const runtime of RUNTIMES) {
    // before, under Bun: keys ["constructor", "q"], the argument gone (proto read {}: Object.prototype)
    assert.deepEqual(await runScript(runtime, SCRIPT), {
      shorten_tools: kept,
      shorten_tools_epoch: kept,
    }, runtime);
  }
});
