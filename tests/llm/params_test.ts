import assert from "node:assert/strict";
import { formatToText, prefixedMap, providerParams, typedValue } from "../../src/llm/params.ts";

Deno.test("pipeline keys never reach the provider; the rest does, typed (§2.4)", () => {
  const { params } = providerParams({
    endpoint: "e",
    persist: "false",
    agent: "x",
    backend: "openai",
    url: "http://h",
    key: "sk-1",
    api_version: "v1",
    request_timeout: "5",
    max_tool_rounds: "3",
    max_retries: "1",
    prompt_strategies: "none",
    previous_response: "false",
    temperature: "0.2",
    max_tokens: "100",
    tool_choice: "auto",
    store: "true",
    stop: '["a","b"]',
  });
  assert.deepEqual(params, {
    temperature: 0.2,
    max_tokens: 100,
    tool_choice: "auto",
    store: true,
    stop: ["a", "b"],
  });
});

Deno.test("typedValue: numbers, booleans, null, JSON; other text unchanged", () => {
  assert.equal(typedValue("12"), 12);
  assert.equal(typedValue("-0.5"), -0.5);
  assert.equal(typedValue("1e3"), 1000);
  assert.equal(typedValue("false"), false);
  assert.equal(typedValue("null"), null);
  assert.deepEqual(typedValue('{"a":1}'), { a: 1 });
  assert.equal(typedValue("{not json}"), "{not json}");
  assert.equal(typedValue("gpt-5"), "gpt-5");
  assert.equal(typedValue("99999999999999999999"), "99999999999999999999");
});

Deno.test("reasoning_*/text_* collect into maps; prefix anchored ([TS-FIX]); reasoning: high → {effort}", () => {
  assert.deepEqual(
    prefixedMap({ reasoning_effort: "low", reasoning_summary: "auto" }, "reasoning"),
    {
      effort: "low",
      summary: "auto",
    },
  );
  assert.equal(prefixedMap({ max_reasoning_tokens: "5" }, "reasoning"), undefined);
  assert.deepEqual(prefixedMap({ reasoning: "high" }, "reasoning"), { effort: "high" });
  assert.deepEqual(
    prefixedMap(
      { reasoning_options: { effort: "low", x: 1 }, reasoning_effort: "medium" },
      "reasoning",
    ),
    { effort: "medium", x: 1 },
  );
  assert.deepEqual(
    prefixedMap({ reasoning_effort: "low", reasoning: { effort: "high" } }, "reasoning"),
    {
      effort: "high",
    },
  );
  const p = providerParams({
    reasoning_effort: "low",
    text_verbosity: "low",
    max_reasoning_tokens: "5",
  });
  assert.deepEqual(p.reasoning, { effort: "low" });
  assert.deepEqual(p.text, { verbosity: "low" });
  assert.deepEqual(p.params, { max_reasoning_tokens: 5 });
});

Deno.test("format → text (§2.5): json, other strings, maps with format, json_schema, shorthand", () => {
  assert.deepEqual(formatToText("json"), { format: { type: "json_object" } });
  assert.deepEqual(formatToText("json_object"), { format: { type: "json_object" } });
  assert.deepEqual(formatToText("text"), { format: { type: "text" } });
  assert.deepEqual(formatToText({ format: { type: "x" } }), { format: { type: "x" } });
  assert.deepEqual(formatToText({ type: "json_schema", name: "n", schema: {} }), {
    format: { type: "json_schema", name: "n", schema: {} },
  });
  assert.deepEqual(formatToText({ name: "person", age: ["integer", "Age", 0], who: "string" }), {
    format: {
      name: "person",
      type: "json_schema",
      schema: {
        type: "object",
        properties: {
          age: { type: "integer", description: "Age", default: 0 },
          who: { type: "string" },
        },
        required: ["age", "who"],
        additionalProperties: false,
      },
    },
  });
  // a truthy default makes a property optional; nothing required → additionalProperties {type:string}
  assert.deepEqual(formatToText({ unit: ["string", "Unit", "C"] }).format, {
    name: "response",
    type: "json_schema",
    schema: {
      type: "object",
      properties: { unit: { type: "string", description: "Unit", default: "C" } },
      required: [],
      additionalProperties: { type: "string" },
    },
  });
  // a schema with properties is kept (no wrapping)
  const s = formatToText({ properties: { a: "number" }, required: ["a"] }).format as Record<
    string,
    unknown
  >;
  assert.deepEqual(s.schema, {
    properties: { a: { type: "number" } },
    required: ["a"],
    type: "object",
    additionalProperties: false,
  });
  // format wins over text_*
  assert.deepEqual(providerParams({ text_verbosity: "low", format: "json" }).text, {
    format: { type: "json_object" },
  });
});
