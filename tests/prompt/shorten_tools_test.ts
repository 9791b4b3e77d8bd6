import assert from "node:assert/strict";
import { shortenTools } from "../../src/prompt/shorten_tools.ts";
import type { Message } from "../../src/chat/types.ts";
import { argOf, call, notation, output, pairs, settings } from "./support.ts";

Deno.test("PS-4: budget spent → newest outputs whole, then truncated, then dropped", () => {
  const input = pairs(5);
  const s = settings({ maxToolChars: 1, fullToolOutputs: 2, maxToolCalls: 3, maxToolOutputs: 3 });
  const out = shortenTools(input, s);
  assert.equal(notation(out, input), "system user C3t O3t C4t O4t C5t O5");
  const c3 = out[2]!.content as string;
  assert.equal(c3.length, 258);
  assert.equal(
    c3,
    '{"name":"f","arguments":{"q":"Truncated (300): a3' + "x".repeat(87) + "<...300 - b5161...>" +
      "x".repeat(90) + '"},"id":"c3"}',
  );
  const o3 = out[3]!.content as string;
  assert.equal(o3.length, 450);
  assert.equal(
    JSON.parse(o3).content,
    "Truncated (500): o3" + "y".repeat(187) + "<...500 - 8033b...>" + "y".repeat(190),
  );
  // md5 prefixes named by the spec show up in the truncated values
  const marks = out.slice(2).map((m) =>
    /<\.\.\.\d+ - (\w{5})\.\.\.>/.exec(m.content as string)?.[1]
  );
  assert.deepEqual(marks, ["b5161", "8033b", "27977", "af500", "83628", undefined]);
});

Deno.test("PS-4 defaults: 5 pairs fit the 100 000-char budget → unchanged", () => {
  const input = pairs(5);
  assert.deepEqual(shortenTools(input, settings()), input);
});

const ps5 = (): Message[] => [
  { role: "system", content: "sys" },
  { role: "user", content: "go" },
  call(1, "a"),
  output(1, "first"),
  call(2, "a"),
  output(2, "y".repeat(500)),
  call(3, "a"),
  output(3, "ok"),
];

Deno.test("PS-5 [TS-FIX]: a kept output keeps its call (Ruby orphans O2)", () => {
  const input = ps5();
  assert.equal((input[2]!.content as string).length, 44);
  assert.equal((input[3]!.content as string).length, 40);
  assert.equal((input[5]!.content as string).length, 535);
  const out = shortenTools(
    input,
    settings({ maxToolChars: 200, fullToolOutputs: 0, maxToolCalls: 1, maxToolOutputs: 1 }),
  );
  // Ruby: "system user O2 C3 O3"
  assert.equal(notation(out, input), "system user C2 O2 C3 O3");
});

Deno.test("PS-6 [TS-FIX]: a dropped output drops its call (Ruby orphans C2 C3)", () => {
  const input = pairs(4, { arg: (i) => `a${i}` });
  const out = shortenTools(
    input,
    settings({ maxToolChars: 1, fullToolOutputs: 1, maxToolCalls: 3, maxToolOutputs: 1 }),
  );
  // Ruby: "system user C2 C3 C4 O4"
  assert.equal(notation(out, input), "system user C4 O4");
  assert.deepEqual(shortenTools(input, settings()), input);
});

Deno.test("the message crossing the budget stays whole; the next one is truncated", () => {
  const input = pairs(3);
  // each pair: output 535 + call 343 = 878; budget 900 → O3, C3 whole (used 878 < 900),
  // O2 whole (crosses), C2 and older truncated (k ≥ fullToolOutputs = 0)
  const out = shortenTools(input, settings({ maxToolChars: 900, fullToolOutputs: 0 }));
  assert.equal(notation(out, input), "system user C1t O1t C2t O2 C3 O3");
});

Deno.test("off-by-one: fullToolOutputs keeps only fullToolOutputs − 1 outputs once spent", () => {
  const input = pairs(4);
  const out = shortenTools(input, settings({ maxToolChars: 1, fullToolOutputs: 3 }));
  assert.equal(notation(out, input), "system user C1t O1t C2t O2t C3t O3 C4t O4");
});

Deno.test("robustness: bad JSON, non-object JSON, non-string content and no arguments", () => {
  const bad: Message[] = [
    { role: "system", content: "sys" },
    { role: "function_call", content: "{not json" },
    { role: "function_call_output", content: "[1,2]" },
    { role: "function_call", content: { name: "f", arguments: { q: "x".repeat(999) } } },
    { role: "function_call_output", content: null },
    { role: "function_call", content: JSON.stringify({ name: "g", id: "n1" }) },
    {
      role: "function_call_output",
      content: JSON.stringify({ id: "n1", content: { big: "z".repeat(999) } }),
    },
    {
      role: "function_call",
      content: JSON.stringify({ name: "g", arguments: '{"q":1}', id: "s1" }),
    },
    { role: "function_call_output", content: JSON.stringify({ id: "s1" }) },
    call(9),
    output(9),
  ];
  const copy = structuredClone(bad);
  const out = shortenTools(
    bad,
    settings({ maxToolChars: 1, fullToolOutputs: 0, maxToolCalls: 99 }),
  );
  assert.deepEqual(bad, copy, "input untouched");
  // unusable and unchangeable messages are kept as they are; O9 is the newest (used = 0 <
  // budget → whole), C9 comes after the budget is spent → truncated
  assert.equal(out.length, bad.length);
  for (let i = 0; i < 9; i++) assert.equal(out[i], bad[i]);
  assert.notEqual(out[9]!.content, bad[9]!.content);
  assert.equal(out[10], bad[10]);
});

Deno.test("outputs without calls and calls without outputs follow their own rule", () => {
  const input: Message[] = [
    { role: "user", content: "go" },
    output(1), // orphan output
    call(2), // call never answered
    call(3),
    output(3),
    call(4), // pending call at the end
  ];
  const out = shortenTools(
    input,
    settings({ maxToolChars: 1, fullToolOutputs: 0, maxToolCalls: 1, maxToolOutputs: 1 }),
  );
  // C4 (newest, unpaired, used = 0) whole; O3 k=1 → truncated; C3 paired with kept O3 →
  // truncated; C2 k=1 → truncated; O1 k=2 > 1 → dropped
  assert.equal(notation(out, input), "user C2t C3t O3t C4");
});

Deno.test("pairing by id with parallel calls: a dropped output drops its own call only", () => {
  const input: Message[] = [
    { role: "user", content: "go" },
    call(1),
    call(2),
    output(1),
    output(2),
  ];
  const out = shortenTools(
    input,
    settings({ maxToolChars: 1, fullToolOutputs: 0, maxToolCalls: 5, maxToolOutputs: 1 }),
  );
  // O2 newest → whole; O1 k=2 > 1 → dropped → C1 dropped; C2 truncated (budget spent)
  assert.equal(notation(out, input), "user C2t O2");
});

Deno.test("a 10 MB output is truncated, and the input is not mutated", () => {
  const big = "b".repeat(10_000_000);
  const input: Message[] = [
    { role: "user", content: "go" },
    call(1),
    output(1, big),
    call(2),
    output(2, "small"),
  ];
  const out = shortenTools(
    input,
    settings({ maxToolChars: 1, fullToolOutputs: 0, maxToolCalls: 5 }),
  );
  assert.equal(notation(out, input), "user C1t O1t C2t O2");
  assert.ok((out[2]!.content as string).length < 500);
  assert.equal(JSON.parse(input[2]!.content as string).content.length, 10_000_000);
});

Deno.test("truncation keeps non-string arguments, key order and extra fields", () => {
  const c: Message = {
    role: "function_call",
    content: JSON.stringify({
      id: "k1",
      name: "f",
      arguments: { n: 5, long: argOf(1), flag: true },
    }),
    extra: "kept",
  };
  const o: Message = {
    role: "function_call_output",
    content: JSON.stringify({ id: "k1", content: "x" }),
  };
  const out = shortenTools([c, o], settings({ maxToolChars: 1, fullToolOutputs: 0 }));
  const parsed = JSON.parse(out[0]!.content as string);
  assert.deepEqual(Object.keys(parsed), ["id", "name", "arguments"]);
  assert.deepEqual(Object.keys(parsed.arguments), ["n", "long", "flag"]);
  assert.equal(parsed.arguments.n, 5);
  assert.equal(parsed.arguments.flag, true);
  assert.ok(parsed.arguments.long.startsWith("Truncated (300): a1"));
  assert.equal(out[0]!.extra, "kept");
  assert.equal(
    c.content,
    JSON.stringify({ id: "k1", name: "f", arguments: { n: 5, long: argOf(1), flag: true } }),
  );
});
