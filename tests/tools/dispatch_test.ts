import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../src/tools/define.ts";
import { envelopeContent, runToolCalls } from "../../src/tools/dispatch.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { toolOutput } from "../../src/tools/types.ts";
import { ScoutError } from "../../src/errors.ts";

let tick = 0;
const clock = () => new Date(Date.UTC(2025, 0, 1, 0, 0, 0, tick++ * 1000));

const registry = toolRegistry({
  get_current_temperature: [
    (_n, a) => `It's 15 degrees and raining in ${a.location} (${a.unit}).`,
    {
      name: "get_current_temperature",
      description: "Temperature",
      parameters: {
        type: "object",
        properties: {
          location: { type: "string" },
          unit: { type: "string", enum: ["Celsius", "Fahrenheit"] },
        },
        required: ["location"],
        defaults: { unit: "Celsius" },
      },
    },
  ],
  nothing: [() => null, { name: "nothing" }],
  numbers: [() => [1, 2], { name: "numbers" }],
  boom: [() => {
    throw new Error("kaput");
  }, { name: "boom" }],
  declared: [null, { name: "declared" }],
});

Deno.test("pairs in call order with the exact envelope key order (§5.5); pinned values merged over the model's", async () => {
  tick = 0;
  const out = await runToolCalls([
    {
      name: "get_current_temperature",
      arguments: { location: "London", unit: "Fahrenheit" },
      id: "call_mock_1",
    },
    { name: "nothing", arguments: {}, id: "c2" },
  ], { registry, now: clock });
  assert.deepEqual(out.map((m) => m.role), [
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
  ]);
  // the logged call keeps the model's arguments; the implementation saw the pinned unit
  assert.equal(
    out[0]!.content,
    '{"name":"get_current_temperature","arguments":{"location":"London","unit":"Fahrenheit"},"id":"call_mock_1"}',
  );
  assert.equal(
    out[1]!.content,
    '{"name":"get_current_temperature","content":"It\'s 15 degrees and raining in London (Celsius).","id":"call_mock_1","start_timestamp":"2025-01-01T00:00:00.000Z","timestamp":"2025-01-01T00:00:01.000Z"}',
  );
  // per-call timestamps ([TS-FIX]): the second call starts after the first ended
  assert.equal(JSON.parse(String(out[3]!.content)).start_timestamp, "2025-01-01T00:00:02.000Z");
  assert.equal(JSON.parse(String(out[3]!.content)).content, "success");
});

Deno.test("result → content: numbers/objects JSON, streams read, ToolOutput fields kept", async () => {
  const reg = toolRegistry({
    numbers: [() => [1, 2], { name: "numbers" }],
    stream: [() => new Blob(["ab", "cd"]).stream(), { name: "stream" }],
    job: [() => toolOutput({ content: { a: 1 }, step: "Wf/task/Default" }), { name: "job" }],
  });
  const out = await runToolCalls([
    { name: "numbers", arguments: {}, id: "1" },
    { name: "stream", arguments: {}, id: "2" },
    { name: "job", arguments: {}, id: "3" },
  ], { registry: reg });
  const env = out.filter((_, i) => i % 2 === 1).map((m) => JSON.parse(String(m.content)));
  assert.equal(env[0].content, "[1,2]");
  assert.equal(env[1].content, "abcd");
  assert.equal(env[2].content, '{"a":1}');
  assert.equal(env[2].step, "Wf/task/Default");
  assert.deepEqual(Object.keys(env[2]), [
    "name",
    "content",
    "id",
    "step",
    "start_timestamp",
    "timestamp",
  ]);
});

Deno.test("thrown errors become error outputs ([TS-FIX]) without stack frames; the batch goes on (R81-5)", async () => {
  const reg = toolRegistry({
    ...Object.fromEntries(registry),
    placed: [() => {
      throw new ScoutError("parameter", "Bad flour", { file: "/w/Baking/workflow.ts", line: 7 });
    }, { name: "placed" }],
  });
  const out = await runToolCalls([
    { name: "boom", arguments: {}, id: "b" },
    { name: "nothing", arguments: {}, id: "n" },
    { name: "placed", arguments: {}, id: "p" },
  ], { registry: reg });
  const env = JSON.parse(String(out[1]!.content));
  assert.equal(env.error, "error");
  // Ruby's shape, {"exception", "exception_line"}; the line is no stack frame of ours
  assert.deepEqual(JSON.parse(env.content), { exception: "kaput", exception_line: null });
  assert.equal(env.stack, undefined, "no stack on the envelope");
  assert.deepEqual(Object.keys(env).slice(0, 4), ["name", "content", "id", "error"]);
  assert.equal(JSON.parse(String(out[3]!.content)).content, "success");
  // a ScoutError gives the place it is about
  assert.deepEqual(JSON.parse(JSON.parse(String(out[5]!.content)).content), {
    exception: "Bad flour",
    exception_line: "/w/Baking/workflow.ts:7",
  });
  assert.doesNotMatch(out.map((m) => String(m.content)).join(""), /dispatch_test|\.ts:\d+:\d+/);
});

Deno.test("unknown tool, declared-only tool, invalid JSON and invalid arguments → error outputs the model can read", async () => {
  const out = await runToolCalls([
    { name: "nope", arguments: {}, id: "1" },
    { name: "declared", arguments: {}, id: "2" },
    { name: "get_current_temperature", arguments: "{not json", id: "3" },
    { name: "get_current_temperature", arguments: { unit: "Kelvin" }, id: "4" },
    { name: "get_current_temperature", arguments: { location: 7 }, id: "5" },
  ], { registry });
  const contents = out.filter((_, i) => i % 2 === 1).map((m) => JSON.parse(String(m.content)));
  for (const c of contents) assert.equal(c.error, "error");
  const msg = contents.map((c) => JSON.parse(c.content).exception as string);
  assert.match(
    msg[0]!,
    /^Tool or function not found 'nope'\. Available tools: get_current_temperature, nothing/,
  );
  assert.match(msg[1]!, /declared but has no implementation/);
  assert.match(msg[2]!, /Invalid JSON in the arguments of 'get_current_temperature'/);
  // the pinned unit (Celsius) wins over Kelvin, so only the missing location is reported
  assert.equal(
    msg[3],
    `Invalid arguments for 'get_current_temperature': Missing required argument "location"`,
  );
  assert.match(msg[4]!, /"location" must be string, got number/);
  // the function_call message keeps the raw invalid arguments
  assert.equal(JSON.parse(String(out[4]!.content)).arguments, "{not json");
});

Deno.test("a fallback handler answers names the registry does not have", async () => {
  const out = await runToolCalls([{ name: "dyn", arguments: { x: 1 }, id: "d" }], {
    registry: new Map(),
    handler: (name, args) => `${name}:${args.x}`,
  });
  assert.equal(JSON.parse(String(out[1]!.content)).content, "dyn:1");
});

Deno.test("length guard: longer than max_content_length → truncated notice naming tool, id, sizes", async () => {
  const reg = toolRegistry({ big: [() => "x".repeat(50), { name: "big" }] });
  const out = await runToolCalls([{ name: "big", arguments: { q: 1 }, id: "call_big" }], {
    registry: reg,
    maxContentLength: 10,
  });
  const env = JSON.parse(String(out[1]!.content));
  assert.equal(env.error, "truncated");
  const notice = JSON.parse(env.content);
  assert.match(
    notice.exception,
    /Tool 'big' \(call call_big, arguments [0-9a-f]{8}\) executed successfully but returned 50 characters, more than the maximum of 10/,
  );
  assert.deepEqual(notice.stack, []);
  const ok = await runToolCalls([{ name: "big", arguments: {}, id: "c" }], {
    registry: reg,
    maxContentLength: 50,
  });
  assert.equal(JSON.parse(String(ok[1]!.content)).content.length, 50);
});

Deno.test("length guard: counts code points, not UTF-16 units (an emoji is one character)", async () => {
  const reg = toolRegistry({ faces: [() => "😀".repeat(6), { name: "faces" }] });
  const run = (max: number) =>
    runToolCalls([{ name: "faces", arguments: {}, id: "c" }], {
      registry: reg,
      maxContentLength: max,
    })
      .then((out) => JSON.parse(String(out[1]!.content)));
  assert.equal((await run(6)).content, "😀".repeat(6), "12 UTF-16 units, 6 characters: kept");
  const cut = await run(5);
  assert.equal(cut.error, "truncated");
  assert.match(
    JSON.parse(cut.content).exception,
    /returned 6 characters, more than the maximum of 5/,
  );
  const lone = toolRegistry({ bits: [() => "\udc00".repeat(6), { name: "bits" }] });
  const bits = await runToolCalls([{ name: "bits", arguments: {}, id: "c" }], {
    registry: lone,
    maxContentLength: 5,
  });
  const guarded = JSON.parse(String(bits[1]!.content));
  assert.equal(guarded.error, "truncated", "six lone surrogates are six characters");
  assert.match(JSON.parse(guarded.content).exception, /returned 6 characters/);
});

Deno.test("aborts propagate instead of becoming outputs", async () => {
  const ac = new AbortController();
  const reg = toolRegistry({
    slow: [() => {
      ac.abort();
      throw new DOMException("aborted", "AbortError");
    }, { name: "slow" }],
  });
  await assert.rejects(
    () =>
      runToolCalls([{ name: "slow", arguments: {}, id: "s" }], {
        registry: reg,
        signal: ac.signal,
      }),
    /aborted/,
  );
});

Deno.test("an abort abandons the call still running at once; every call gets an output, carried by the AbortError (R81-5)", async () => {
  const ac = new AbortController();
  let finished = false;
  let deafTimer: ReturnType<typeof setTimeout> | undefined;
  const reg = toolRegistry({
    // a tool that does not watch the signal: it would run 60 s
    deaf: [async () => {
      await new Promise((r) => (deafTimer = setTimeout(r, 60_000)));
      finished = true;
      return "late";
    }, { name: "deaf" }],
    quick: [() => "quick", { name: "quick" }],
  });
  const timer = setTimeout(() => ac.abort(new DOMException("Terminated", "AbortError")), 100);
  const t0 = Date.now();
  const err = await runToolCalls([
    { name: "quick", arguments: {}, id: "q" },
    { name: "deaf", arguments: {}, id: "d" },
    { name: "quick", arguments: {}, id: "never" },
  ], { registry: reg, signal: ac.signal }).then(() => null, (e) => e);
  clearTimeout(timer);
  clearTimeout(deafTimer);
  assert.ok(Date.now() - t0 < 2_000, "abandoned at once");
  assert.equal(finished, false);
  assert.equal((err as Error).name, "AbortError");
  assert.equal((err as Error).message, "Terminated");
  const messages = (err as { messages: { role: string; content: string }[] }).messages;
  assert.deepEqual(messages.map((m) => m.role), [
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
  ]);
  const outs = messages.filter((m) => m.role === "function_call_output").map((m) =>
    JSON.parse(m.content)
  );
  assert.equal(outs[0].content, "quick");
  for (const o of outs.slice(1)) {
    assert.equal(o.error, "error");
    assert.deepEqual(JSON.parse(o.content), {
      exception: "Tool call interrupted before it finished: Terminated",
      exception_line: null,
    });
  }
  assert.deepEqual(outs.map((o) => o.id), ["q", "d", "never"]);
});

Deno.test("concurrency keeps output order", async () => {
  const reg = toolRegistry({
    wait: [async (_n, a) => {
      await new Promise((r) => setTimeout(r, Number(a.ms)));
      return `done ${a.ms}`;
    }, { name: "wait" }],
  });
  const out = await runToolCalls([
    { name: "wait", arguments: { ms: 30 }, id: "a" },
    { name: "wait", arguments: { ms: 1 }, id: "b" },
  ], { registry: reg, concurrency: 2 });
  assert.deepEqual(out.filter((_, i) => i % 2).map((m) => JSON.parse(String(m.content)).id), [
    "a",
    "b",
  ]);
});

Deno.test("zod-defined tools: JSON Schema from zod, validation errors as outputs, defaults applied", async () => {
  const entry = defineTool({
    name: "convert",
    description: "Convert",
    schema: z.object({ value: z.number().int(), unit: z.enum(["C", "F"]).default("C") }),
    run: ({ value, unit }) => `${value}${unit}`,
  });
  assert.deepEqual(entry.definition, {
    type: "function",
    function: {
      name: "convert",
      description: "Convert",
      parameters: {
        type: "object",
        properties: {
          value: { type: "integer" },
          unit: { default: "C", type: "string", enum: ["C", "F"] },
        },
        required: ["value"],
      },
    },
  });
  const reg = toolRegistry([entry]);
  const out = await runToolCalls([
    { name: "convert", arguments: { value: 3 }, id: "1" },
    { name: "convert", arguments: { value: "three" }, id: "2" },
  ], { registry: reg });
  assert.equal(JSON.parse(String(out[1]!.content)).content, "3C");
  const bad = JSON.parse(String(out[3]!.content));
  assert.equal(bad.error, "error");
  assert.match(JSON.parse(bad.content).exception, /Invalid arguments for 'convert': value: /);
});

Deno.test("an unencodable envelope degrades to a plain error string", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const text = envelopeContent({
    name: "t",
    content: "x",
    id: "i",
    agent_meta: [cyclic as never],
    start_timestamp: "s",
    timestamp: "t",
  });
  assert.match(text, /^Error encoding the output of 't' \(i\)/);
});

Deno.test("a batch of concurrent calls puts one abort listener on the signal, not one per call (R95-4: O(N²))", async () => {
  const ac = new AbortController();
  const signal = ac.signal;
  let live = 0;
  let peak = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...a: Parameters<typeof add>) => {
    peak = Math.max(peak, ++live);
    add(...a);
  }) as typeof add;
  signal.removeEventListener = ((...a: Parameters<typeof remove>) => {
    live--;
    remove(...a);
  }) as typeof remove;
  const reg = toolRegistry({
    job: [async (_n, a) => {
      await new Promise((r) => setTimeout(r, 20));
      return `done ${a.i}`;
    }, { name: "job" }],
  });
  reg.get("job")!.concurrent = true;
  const calls = Array.from(
    { length: 50 },
    (_, i) => ({ name: "job", arguments: { i }, id: `c${i}` }),
  );
  const out = await runToolCalls(calls, { registry: reg, signal });
  assert.equal(out.length, 100);
  assert.equal(JSON.parse(String(out[99]!.content)).content, "done 49");
  assert.equal(peak, 1);
  assert.equal(live, 0);
});
