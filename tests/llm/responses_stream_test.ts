/**
 * Responses streams from servers that send the items only as events (R83-2):
 * ChatGPT/Codex backends, LiteLLM, new-api end with a `response.completed`
 * whose `output` is `[]` or missing. The answer and the tool calls come from
 * the streamed items, and the cache keeps the real answer.
 */
import assert from "node:assert/strict";
import { ask } from "../../src/llm/ask.ts";
import type { Piece } from "../support/protocol_parts.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { echoTool, opts, question } from "./ask_support.ts";

type Item = Record<string, unknown>;

const message = (text: string): Item => ({
  type: "message",
  id: "msg_1",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }],
});

const call = (id: string, args: string): Item => ({
  type: "function_call",
  id: `fc_${id}`,
  call_id: id,
  name: "lookup",
  arguments: args,
  status: "completed",
});

const usage = { input_tokens: 9, output_tokens: 4, total_tokens: 13 };

/**
 * The events of a proxy-style stream: each item added, its deltas, done
 * (unless `noDone`), then `response.completed` with `final` as its output
 * (`undefined`: no `output` key).
 */
function proxyStream(id: string, items: Item[], final: Item[] | undefined, noDone = false) {
  let seq = 0;
  const ev = (type: string, rest: Record<string, unknown>): Piece => ({
    event: type,
    data: { type, sequence_number: seq++, ...rest },
  });
  const shell = { id, object: "response", status: "in_progress", output: [], usage: null };
  const pieces = [ev("response.created", { response: shell })];
  items.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === "message") {
      pieces.push(
        ev("response.output_item.added", { output_index, item: { ...item, content: [] } }),
      );
      const text = (item.content as Item[])[0]!.text as string;
      for (const delta of [text.slice(0, 4), text.slice(4)]) {
        pieces.push(ev("response.output_text.delta", { ...at, content_index: 0, delta }));
      }
    } else {
      pieces.push(
        ev("response.output_item.added", { output_index, item: { ...item, arguments: "" } }),
      );
      const args = item.arguments as string;
      for (const delta of [args.slice(0, 3), args.slice(3)]) {
        pieces.push(ev("response.function_call_arguments.delta", { ...at, delta }));
      }
    }
    if (!noDone) pieces.push(ev("response.output_item.done", { output_index, item }));
  });
  const done: Record<string, unknown> = { id, object: "response", status: "completed", usage };
  if (final !== undefined) done.output = final;
  pieces.push(ev("response.completed", { response: done }));
  return pieces;
}

Deno.test("responses stream: completed with output [] — the streamed answer is saved and cached", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const answer = "Visible streamed answer";
  srv.script({ id: "resp_1", pieces: proxyStream("resp_1", [message(answer)], []) });
  const o = opts(srv, "responses", home.path, { stream: true, persist: true });
  const r = await ask(question, o);
  assert.equal(r.text, answer);
  assert.deepEqual(r.messages.map((m) => m.role), ["meta", "assistant", "previous_response_id"]);
  assert.match(String(r.messages[0]!.content), /\bpt=9\b/);
  const again = await ask(
    question,
    opts(srv, "responses", home.path, { stream: true, persist: true }),
  );
  assert.equal(again.cached, true);
  assert.equal(again.text, answer);
  assert.equal(srv.requests.length, 1);
});

Deno.test("responses stream: completed with output [] — the streamed tool call runs", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    { id: "resp_1", pieces: proxyStream("resp_1", [call("call_a", '{"q":"eggs"}')], []) },
    { id: "resp_2", pieces: proxyStream("resp_2", [message("There are eggs.")], []) },
  );
  const r = await ask(
    question,
    opts(srv, "responses", home.path, { stream: true, tools: echoTool() }),
  );
  assert.equal(r.text, "There are eggs.");
  const output = JSON.parse(
    String(r.messages.find((m) => m.role === "function_call_output")!.content),
  );
  assert.equal(output.id, "call_a");
  assert.equal(output.content, "found eggs");
  assert.equal(srv.requests.length, 2);
  const input = srv.requests[1]!.body.input as Item[];
  assert.deepEqual(input.at(-1), {
    type: "function_call_output",
    output: "found eggs",
    call_id: "call_a",
  });
});

Deno.test("responses stream: completed without output, items never done — built from added and deltas", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    {
      id: "resp_1",
      pieces: proxyStream("resp_1", [call("call_b", '{"q":"flour"}')], undefined, true),
    },
    { id: "resp_2", pieces: proxyStream("resp_2", [message("Flour found.")], undefined, true) },
  );
  const r = await ask(
    question,
    opts(srv, "responses", home.path, { stream: true, tools: echoTool() }),
  );
  assert.equal(r.text, "Flour found.");
  const output = JSON.parse(
    String(r.messages.find((m) => m.role === "function_call_output")!.content),
  );
  assert.equal(output.content, "found flour");
});

Deno.test("responses stream: a complete final output is taken as sent", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  // the events say one thing, the final output (complete) another: the final output wins
  srv.script({
    id: "resp_1",
    pieces: proxyStream("resp_1", [message("streamed text")], [message("final text")]),
  });
  const r = await ask(question, opts(srv, "responses", home.path, { stream: true }));
  assert.equal(r.text, "final text");
});
