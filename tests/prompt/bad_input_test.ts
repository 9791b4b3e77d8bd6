/**
 * Bad input through every strategy: malformed function_call JSON, calls
 * without arguments, outputs without calls, a single 10 MB output,
 * non-string content. Nothing throws, nothing is lost that was not meant to
 * be dropped, and the input is never modified.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { preparePrompt } from "../../src/prompt/prepare.ts";
import { promptSummary } from "../../src/prompt/summary.ts";
import { call, output, pairs } from "./support.ts";

const small = {
  env: {},
  epochToolCallThreshold: 2,
  epochFullToolCalls: 1,
  epochCompactedToolCalls: 2,
  epochSize: 2,
  maxToolChars: 1,
  fullToolOutputs: 0,
};

function nasty(): Message[] {
  const big = "B".repeat(10_000_000);
  return [
    { role: "system", content: "sys" },
    { role: "function_call", content: "{broken json" },
    { role: "function_call_output", content: "also broken" },
    { role: "function_call", content: JSON.stringify({ name: "noargs", id: "n1" }) },
    { role: "function_call_output", content: JSON.stringify({ id: "n1", content: "fine" }) },
    {
      role: "function_call_output",
      content: JSON.stringify({ id: "orphan", content: "x".repeat(900) }),
    },
    {
      role: "function_call",
      content: JSON.stringify({ name: "big", arguments: { q: "a" }, id: "b1" }),
    },
    {
      role: "function_call_output",
      content: JSON.stringify({ name: "big", content: big, id: "b1" }),
    },
    { role: "function_call", content: { name: "obj", arguments: { q: "z".repeat(900) } } },
    { role: "function_call_output", content: 42 },
    { role: "function_call_output", content: null },
    { role: "function_call", content: JSON.stringify([1, 2, 3]) },
    {
      role: "function_call",
      content: JSON.stringify({ name: "s", arguments: '{"q":"json string"}', id: "s1" }),
    },
    {
      role: "function_call_output",
      content: JSON.stringify({ id: "s1", content: { structured: true } }),
    },
    ...pairs(6).slice(2),
  ];
}

Deno.test("every strategy survives the bad input and leaves it untouched", () => {
  const input = nasty();
  const sizes = input.map((m) => typeof m.content === "string" ? m.content.length : -1);
  for (const strategy of [null, "shorten_tools", "none", "shorten_tools,shorten_tools_epoch"]) {
    const out = preparePrompt(input, strategy, small);
    assert.ok(out.length > 0);
    // unusable messages (bad JSON, non-string, non-object) are always kept as they are
    for (const i of [1, 2, 8, 9, 10, 11]) assert.ok(out.includes(input[i]!), `${strategy}: ${i}`);
    assert.deepEqual(
      input.map((m) => typeof m.content === "string" ? m.content.length : -1),
      sizes,
    );
  }
});

Deno.test("the 10 MB output is compacted (or dropped) by the epoch strategy", () => {
  const input = nasty();
  const out = preparePrompt(input, null, small);
  const s = promptSummary(input, out);
  assert.ok(s.charsAfter < 100_000, `${s.charsAfter}`);
  assert.ok(s.truncated + s.dropped > 0);
  const shorten = preparePrompt(input, "shorten_tools", small);
  assert.ok(promptSummary(input, shorten).charsAfter < 100_000);
});

Deno.test("a call without arguments and a JSON-string arguments value are never rewritten", () => {
  const input: Message[] = [
    { role: "user", content: "go" },
    { role: "function_call", content: JSON.stringify({ name: "noargs", id: "n1" }) },
    {
      role: "function_call_output",
      content: JSON.stringify({ id: "n1", content: "o".repeat(600) }),
    },
    {
      role: "function_call",
      content: JSON.stringify({
        name: "s",
        arguments: '{"q":"' + "j".repeat(600) + '"}',
        id: "c2",
      }),
    },
    output(2, "p".repeat(600)),
    call(3),
    output(3),
    call(4),
    output(4),
  ];
  const out = preparePrompt(input, null, small);
  assert.ok(out.includes(input[1]!));
  assert.ok(out.includes(input[3]!));
});

Deno.test("an empty prompt and a prompt of plain messages pass through every strategy", () => {
  for (const strategy of [null, "shorten_tools", "none"]) {
    assert.deepEqual(preparePrompt([], strategy, small), []);
    const plain = [{ role: "user", content: "hi" }, { role: "assistant", content: null }];
    assert.deepEqual(preparePrompt(plain, strategy, small), plain);
  }
});
