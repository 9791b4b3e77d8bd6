/**
 * Chat Completions streams: tool-call fragments grouped as real servers send
 * them (R83-3) — OpenAI's `index` per call, Ollama's `index: 0` for every
 * call of a parallel batch (distinct ids), and servers that send no `index`
 * (older Ollama, Gemini's compatible API), with or without ids.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { ask } from "../../src/llm/ask.ts";
import type { Piece } from "../support/protocol_parts.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { echoTool, opts, question } from "./ask_support.ts";

type Fragment = Record<string, unknown>;

/** A Chat Completions stream whose chunks carry these tool-call fragments, one per chunk. */
function toolStream(fragments: Fragment[]): Piece[] {
  const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
  const chunk = (delta: unknown, finish_reason: string | null = null) => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason }] },
  });
  return [
    chunk({ role: "assistant", content: "" }),
    ...fragments.map((f) => chunk({ tool_calls: [f] })),
    chunk({}, "tool_calls"),
    { data: "[DONE]" },
  ];
}

/** A fragment: `function` with the given name and/or arguments, plus `extra` (index, id, type). */
const frag = (extra: Fragment, name?: string, args?: string): Fragment => ({
  ...extra,
  function: {
    ...(name !== undefined ? { name } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
  },
});

/** Streams `fragments` as round 1 (then a plain answer) and returns the calls as saved. */
async function savedCalls(fragments: Fragment[]) {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ pieces: toolStream(fragments) }, { text: "done" });
  const r = await ask(
    question,
    opts(srv, "openai", home.path, { stream: true, tools: echoTool() }),
  );
  assert.equal(r.text, "done");
  const of = (role: string) =>
    r.messages.filter((m: Message) => m.role === role).map((m) => JSON.parse(String(m.content)));
  const sent = (srv.requests[1]!.body.messages as Fragment[]).filter((m) => m.role === "tool");
  return {
    calls: of("function_call").map((c) => ({ name: c.name, arguments: c.arguments, id: c.id })),
    outputs: of("function_call_output").map((o) => [o.id, o.content]),
    toolCallIds: sent.map((m) => m.tool_call_id),
  };
}

Deno.test("chat stream: indexed fragments, interleaved, assemble per index (unchanged)", async () => {
  const got = await savedCalls([
    frag({ index: 0, id: "call_a", type: "function" }, "lookup", ""),
    frag({ index: 1, id: "call_b", type: "function" }, "lookup", '{"q":'),
    frag({ index: 0 }, undefined, '{"q":"eggs"}'),
    frag({ index: 1 }, undefined, '"milk"}'),
  ]);
  assert.deepEqual(got.calls, [
    { name: "lookup", arguments: { q: "eggs" }, id: "call_a" },
    { name: "lookup", arguments: { q: "milk" }, id: "call_b" },
  ]);
  assert.deepEqual(got.outputs, [["call_a", "found eggs"], ["call_b", "found milk"]]);
});

Deno.test("chat stream: parallel calls all at index 0 with distinct ids (Ollama) stay apart", async () => {
  const got = await savedCalls([
    frag({ index: 0, id: "call_a", type: "function" }, "lookup", '{"q":"eggs"}'),
    frag({ index: 0, id: "call_b", type: "function" }, "lookup", '{"q":"milk"}'),
  ]);
  assert.deepEqual(got.calls, [
    { name: "lookup", arguments: { q: "eggs" }, id: "call_a" },
    { name: "lookup", arguments: { q: "milk" }, id: "call_b" },
  ]);
  assert.deepEqual(got.toolCallIds, ["call_a", "call_b"]);
});

Deno.test("chat stream: no index, ids on the first fragments — continuations join the last call", async () => {
  const got = await savedCalls([
    frag({ id: "call_a", type: "function" }, "lookup", '{"q":'),
    frag({}, undefined, '"eggs"}'),
    frag({ id: "call_b", type: "function" }, "lookup", '{"q":"mi'),
    frag({}, undefined, 'lk"}'),
  ]);
  assert.deepEqual(got.calls, [
    { name: "lookup", arguments: { q: "eggs" }, id: "call_a" },
    { name: "lookup", arguments: { q: "milk" }, id: "call_b" },
  ]);
  assert.deepEqual(got.outputs, [["call_a", "found eggs"], ["call_b", "found milk"]]);
});

Deno.test("chat stream: no index and no ids — continuations join, a call sent whole starts anew", async () => {
  const got = await savedCalls([
    frag({ type: "function" }, "lookup", '{"q":'),
    frag({}, undefined, '"eggs"}'),
    frag({ type: "function" }, "lookup", '{"q":"milk"}'),
  ]);
  assert.deepEqual(got.calls.map((c) => [c.name, c.arguments]), [
    ["lookup", { q: "eggs" }],
    ["lookup", { q: "milk" }],
  ]);
  assert.equal(new Set(got.calls.map((c) => c.id)).size, 2);
  assert.deepEqual(got.outputs.map((o) => o[1]), ["found eggs", "found milk"]);
});
