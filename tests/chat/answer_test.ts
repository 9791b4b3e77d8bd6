import assert from "node:assert/strict";
import {
  answer,
  final,
  isScoutError,
  parseJson,
  printBrief,
  purged,
  roleMessages,
  shed,
  tooling,
} from "../../mod.ts";
import type { Chat } from "../../mod.ts";
import { unwrapContent } from "../../src/chat/json.ts";

const chat: Chat = [
  { role: "tool", content: "Baking" },
  { role: "user", content: "q" },
  { role: "meta", content: "pt=1" },
  { role: "assistant", content: "a" },
  { role: "previous_response_id", content: "r1" },
];

Deno.test("final/answer/shed/purged skip previous_response_id", () => {
  assert.deepEqual(final(chat), { role: "assistant", content: "a" });
  assert.equal(answer(chat), "a");
  assert.deepEqual(shed(chat), [{ role: "assistant", content: "a" }]);
  assert.equal(purged(chat).length, 4);
  assert.equal(final([]), undefined);
  assert.equal(answer([{ role: "previous_response_id", content: "r" }]), undefined);
  assert.deepEqual(shed([]), []);
  assert.deepEqual(
    final([{ role: "assistant", content: "a" }, { role: "meta", content: "pt=1" }]),
    { role: "meta", content: "pt=1" },
    "the final message may be a meta",
  );
});

Deno.test("roleMessages and tooling", () => {
  assert.deepEqual(roleMessages(chat, "user"), [{ role: "user", content: "q" }]);
  assert.deepEqual(
    tooling([...chat, { role: "mcp", content: "u" }, { role: "kb", content: "k" }, {
      role: "introduce",
      content: "W",
    }]).map((m) => m.role),
    ["tool", "mcp", "kb", "introduce"],
  );
});

Deno.test("parseJson §8", () => {
  assert.equal(parseJson(""), null);
  assert.equal(parseJson(null), null);
  assert.deepEqual(parseJson('{"a":1}'), { a: 1 });
  assert.deepEqual(parseJson('Here:\n```json\n{"a":1}\n```\nbye'), { a: 1 });
  assert.deepEqual(
    parseJson('```json\n{"a":1}\n```\nthen\n```json\n{"b":2}\n```'),
    { b: 2 },
    "the last fence wins",
  );
  assert.deepEqual(
    parseJson('```json\n{"s":"x```y"}\n```'),
    { s: "x```y" },
    "up to the last ``` (greedy)",
  );
  assert.throws(() => parseJson('```\n{"a":1}\n```'), (e) => isScoutError(e, "json_parse"));
  assert.throws(() => parseJson("not json"), (e) => isScoutError(e, "json_parse"));
  assert.throws(() => parseJson('```json {"a":1}```'), (e) => isScoutError(e, "json_parse"));
});

Deno.test("unwrapContent: an object whose only key is content yields it (D12)", () => {
  assert.deepEqual(unwrapContent({ content: [1, 2] }), [1, 2]);
  assert.equal(unwrapContent({ content: null }), null);
  assert.deepEqual(unwrapContent({ content: 1, n: 2 }), { content: 1, n: 2 });
  assert.deepEqual(unwrapContent([{ content: 1 }]), [{ content: 1 }]);
  assert.equal(unwrapContent("content"), "content");
  assert.equal(unwrapContent(null), null);
});

Deno.test("printBrief: fingerprints, expanded roles", () => {
  const long = "x".repeat(100) + "\n" + "y".repeat(100);
  const out = printBrief([
    { role: "system", content: "Be\nbrief" },
    { role: "user", content: long },
    { role: "function_call", content: { name: "f" } },
    { role: "assistant", content: "full\ntext" },
    { role: "user", content: null },
  ], ["assistant"]);
  const parts = out.split("\n\n");
  assert.equal(parts[0], "\nsystem: Be\\nbrief");
  assert.match(parts[1]!, /^user: x+<\.\.\.202 - [0-9a-f]{5}\.\.\.>y+$/);
  assert.ok(parts[1]!.length <= "user: ".length + 150);
  assert.equal(parts[2], 'function_call: {"name":"f"}');
  assert.equal(parts.slice(3, 5).join("\n\n"), "assistant: \n\nfull\ntext");
  assert.equal(parts[5], "user: ");
});
