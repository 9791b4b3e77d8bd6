/**
 * Request options and parameters named `__proto__` reach the provider like
 * any, under Bun (the binary's runtime) as under Deno (R112-5 follow-up):
 * each record built key by key from them assigned into a plain `{}`, where
 * Bun's `__proto__` setter dropped a string and made an object the record's
 * prototype. The call options (`requestOptions`), the provider parameters and
 * the shaped maps (`providerParams`: `reasoning_*`, a `format` shorthand's
 * fields), Ollama's `options`, Converse's additional fields, the redacted
 * snapshot and what a relay worker keeps of a request.
 */
import assert from "node:assert/strict";
import { runScript, RUNTIMES } from "../support/runtimes.ts";

const SCRIPT = `import { requestOptions } from "./src/llm/ask_options.ts";
import { providerParams } from "./src/llm/params.ts";
import { ollamaBody } from "./src/llm/backends/ollama.ts";
import { converseBody } from "./src/llm/backends/bedrock_converse.ts";
import { redactOptions } from "./src/llm/snapshot.ts";
import { workerOptions } from "./src/cli/llm_process_guard.ts";
const given = JSON.parse('{"__proto__": "x", "constructor": "c", "reasoning___proto__": "1"}');
const shaped = providerParams({
  ...given,
  format: JSON.parse('{"__proto__": "string", "b": "string"}'),
});
const req = { messages: [{ role: "user", content: "q" }], tools: [], params: shaped.params, stream: false };
const schema = shaped.text.format.schema;
console.log(JSON.stringify({
  request: Object.keys(requestOptions(given)),
  params: Object.keys(shaped.params),
  reasoning: Object.keys(shaped.reasoning),
  schema: { properties: Object.keys(schema.properties), required: schema.required },
  ollama: Object.keys(ollamaBody(req, "m").options),
  converse: Object.keys(converseBody(req).additionalModelRequestFields),
  redacted: Object.keys(redactOptions(given)),
  worker: Object.keys(workerOptions(given, () => {})),
}));`;

Deno.test("options named __proto__, constructor are sent like any, under Bun and Deno", async () => {
  const all = ["__proto__", "constructor", "reasoning___proto__"];
  for (const runtime of RUNTIMES) {
    // before, under Bun: "__proto__" in none of these lists (`reasoning` empty)
    assert.deepEqual(await runScript(runtime, SCRIPT), {
      request: all,
      params: ["__proto__", "constructor"],
      reasoning: ["__proto__"],
      schema: { properties: ["__proto__", "b"], required: ["__proto__", "b"] },
      ollama: ["__proto__", "constructor"],
      converse: ["__proto__", "constructor"],
      redacted: all,
      worker: all,
    }, runtime);
  }
});
