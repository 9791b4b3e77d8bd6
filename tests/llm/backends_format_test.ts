/**
 * Request and reply formats of the OpenAI protocols (Responses, Chat
 * Completions), and what every backend's formatting must not do.
 */
import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { anthropicTools } from "../../src/llm/backends/anthropic.ts";
import { chatBody, chatMessages, chatReply, chatTools } from "../../src/llm/backends/openai.ts";
import { ollamaBody } from "../../src/llm/backends/ollama.ts";
import {
  responsesBody,
  responsesInput,
  responsesReply,
  responsesTools,
} from "../../src/llm/backends/responses.ts";
import { providerDefinitions, toolRegistry } from "../../src/tools/registry.ts";
import { CHAT, req, WEATHER } from "./backends_format_support.ts";

Deno.test("Responses request body reproduces the machine-checked input items (§3.1)", () => {
  const body = responsesBody(
    req(CHAT, { tools: [WEATHER], previousResponseId: "resp_1" }),
    "gpt-5-nano",
  );
  assert.deepEqual(body, {
    model: "gpt-5-nano",
    input: [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather?" },
      {
        type: "function_call",
        status: "completed",
        name: "get_current_temperature",
        arguments: '{"location":"London","unit":"Celsius"}',
        call_id: "call_mock_1",
      },
      {
        type: "function_call_output",
        output: "It's 15 degrees and raining.",
        call_id: "call_mock_1",
      },
    ],
    tools: [{
      type: "function",
      name: "get_current_temperature",
      description: "…",
      parameters: {
        type: "object",
        properties: { location: { type: "string" }, unit: { type: "string" } },
      },
    }],
    previous_response_id: "resp_1",
  });
});

Deno.test("formatting never mutates definitions; pinned defaults are stripped for every backend (§5.3)", () => {
  const before = JSON.stringify(WEATHER);
  for (
    const tools of [responsesTools([WEATHER]), chatTools([WEATHER]), anthropicTools([WEATHER])]
  ) {
    assert.ok(!JSON.stringify(tools).includes("defaults"));
  }
  const ollama = ollamaBody(req([{ role: "user", content: "x" }], { tools: [WEATHER] }), "m");
  assert.ok(!JSON.stringify(ollama).includes("defaults"));
  assert.equal(JSON.stringify(WEATHER), before);
  const reg = toolRegistry([WEATHER]);
  assert.ok(!JSON.stringify(providerDefinitions(reg)).includes("defaults"));
  assert.ok(JSON.stringify(reg.get("get_current_temperature")!.definition).includes("defaults"));
});

Deno.test("Responses ids: fc_ prefix dropped, missing call id → call_<index>, missing output id → preceding call's ([TS-FIX])", () => {
  const { input } = responsesInput([
    { role: "function_call", content: '{"name":"f","arguments":"{}","id":"fc_abc"}' },
    { role: "function_call_output", content: '{"content":"ok"}' },
    { role: "function_call", content: '{"name":"g","arguments":{}}' },
    { role: "function_call_output", content: "plain text output" },
  ]);
  assert.deepEqual(input, [
    { type: "function_call", status: "completed", name: "f", arguments: "{}", call_id: "abc" },
    { type: "function_call_output", output: "ok", call_id: "abc" },
    { type: "function_call", status: "completed", name: "g", arguments: "{}", call_id: "call_2" },
    { type: "function_call_output", output: "plain text output", call_id: "call_2" },
  ]);
});

Deno.test("Responses: directives and empty messages are not sent; websearch becomes a hosted tool", () => {
  const body = responsesBody(
    req([
      { role: "meta", content: "pt=1" },
      { role: "previous_response_id", content: "resp_x" },
      { role: "user", content: "" },
      { role: "websearch", content: true },
      { role: "user", content: "q" },
    ]),
    "m",
  );
  assert.deepEqual(body.input, [{ role: "user", content: "q" }]);
  assert.deepEqual(body.tools, [{ type: "web_search_preview" }]);
});

Deno.test("Responses reply processing: texts, calls, mcp_call pair, image, reasoning skipped, unknown warned", () => {
  const warnings: string[] = [];
  const reply = responsesReply({
    id: "resp_9",
    output: [
      { type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] },
      {
        type: "message",
        content: [{ type: "output_text", text: "a" }, { type: "refusal", refusal: "no" }, {
          type: "output_text",
          text: "b",
        }],
      },
      { type: "function_call", call_id: "call_1", id: "fc_1", name: "f", arguments: '{"x":1}' },
      { type: "function_call", id: "fc_2", name: "g", arguments: "{bad" },
      { type: "mcp_call", id: "mcp_1", name: "remote", arguments: "{}", output: "done" },
      { type: "image_generation_call", result: "AAAA" },
      { type: "web_search_call" },
      { type: "something_new" },
    ],
    usage: { input_tokens: 1 },
  }, { warn: (m) => warnings.push(m) });
  assert.equal(reply.id, "resp_9");
  assert.equal(reply.reasoning, "thinking");
  assert.deepEqual(reply.items.slice(0, 4), [
    { type: "text", text: "a" },
    { type: "text", text: "b" },
    { type: "call", name: "f", arguments: { x: 1 }, id: "call_1" },
    { type: "call", name: "g", arguments: "{bad", id: "fc_2" },
  ]);
  assert.equal(reply.items[4]!.type, "hosted_call");
  assert.equal(reply.items[5]!.type, "message");
  assert.equal(reply.items.length, 6);
  assert.deepEqual(warnings, ['Skipping unknown Responses output item "something_new"']);
  assert.throws(() => responsesReply({ error: { message: "bad" } }), /reported an error: bad/);
  assert.throws(() => responsesReply("not json"), (e) => isScoutError(e, "provider_response"));
});

Deno.test("Chat Completions messages: tool calls and outputs with standard fields only ([TS-FIX])", () => {
  assert.deepEqual(chatMessages(CHAT).slice(2), [
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_mock_1",
        type: "function",
        function: {
          name: "get_current_temperature",
          arguments: '{"location":"London","unit":"Celsius"}',
        },
      }],
    },
    { role: "tool", tool_call_id: "call_mock_1", content: "It's 15 degrees and raining." },
  ]);
  assert.throws(
    () => chatMessages([{ role: "websearch", content: true }]),
    /does not support websearch/,
  );
});

Deno.test("tool messages decoded once per content: a message whose content changes is decoded anew", () => {
  const call: Message = {
    role: "function_call",
    content: JSON.stringify({ name: "a", arguments: { x: 1 }, id: "c1" }),
  };
  const out: Message = {
    role: "function_call_output",
    content: JSON.stringify({ id: "c1", content: "one" }),
  };
  const chat: Message[] = [{ role: "user", content: "go" }, call, out];
  const first = chatMessages(chat);
  assert.equal(chatMessages(chat)[2]!.content, "one"); // the same content: the same answer
  call.content = JSON.stringify({ name: "b", arguments: { y: 2 }, id: "c2" });
  out.content = JSON.stringify({ id: "c2", content: "two" });
  const second = chatMessages(chat);
  assert.deepEqual(second[1], {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c2", type: "function", function: { name: "b", arguments: '{"y":2}' } }],
  });
  assert.deepEqual(second[2], { role: "tool", tool_call_id: "c2", content: "two" });
  assert.equal(
    (first[1]!.tool_calls as { id: string }[])[0]!.id,
    "c1",
    "earlier results untouched",
  );
});

Deno.test("Chat Completions body: reasoning.effort → reasoning_effort, text.format → response_format ([TS-FIX])", () => {
  const b = chatBody(
    req([{ role: "user", content: "q" }], {
      params: { temperature: 0 },
      reasoning: { effort: "low" },
      text: { format: { type: "json_schema", name: "r", schema: { type: "object" } } },
    }),
    "m",
  );
  assert.deepEqual(b, {
    temperature: 0,
    model: "m",
    messages: [{ role: "user", content: "q" }],
    reasoning_effort: "low",
    response_format: {
      type: "json_schema",
      json_schema: { name: "r", schema: { type: "object" } },
    },
  });
  assert.deepEqual(
    chatBody(req([], { text: { format: { type: "json_object" } } }), "m").response_format,
    {
      type: "json_object",
    },
  );
  assert.equal("reasoning" in b, false);
  assert.equal("text" in b, false);
});

Deno.test("Chat Completions reply: text kept before calls ([TS-FIX]); no choices and errors are typed", () => {
  const r = chatReply({
    id: "c1",
    choices: [{
      message: {
        content: "Let me check",
        reasoning_content: "hmm",
        tool_calls: [{
          id: "call_1",
          type: "function",
          function: { name: "f", arguments: '{"a":1}' },
        }],
      },
    }],
    usage: { prompt_tokens: 1 },
  });
  assert.deepEqual(r.items, [
    { type: "text", text: "Let me check" },
    { type: "call", name: "f", arguments: { a: 1 }, id: "call_1" },
  ]);
  assert.equal(r.reasoning, "hmm");
  assert.throws(() => chatReply({ id: "x", choices: [] }), (e) => {
    assert.ok(isScoutError(e, "provider_response"));
    assert.match(e.message, /no choices/);
    return true;
  });
  assert.throws(() => chatReply({ error: { message: "quota" } }), /reported an error: quota/);
});
