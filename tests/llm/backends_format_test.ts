import assert from "node:assert/strict";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import {
  anthropicBody,
  anthropicMessages,
  anthropicReply,
  anthropicTools,
  anthropicUrl,
} from "../../src/llm/backends/anthropic.ts";
import { chatBody, chatMessages, chatReply, chatTools } from "../../src/llm/backends/openai.ts";
import { openaiBaseUrl } from "../../src/llm/backends/openai_sdk.ts";
import { argumentDigest, ollamaBody, ollamaReply } from "../../src/llm/backends/ollama.ts";
import {
  responsesBody,
  responsesInput,
  responsesReply,
  responsesTools,
} from "../../src/llm/backends/responses.ts";
import { cleanToolName } from "../../src/llm/backends/vllm.ts";
import type { BackendRequest } from "../../src/llm/types.ts";
import { providerDefinitions, toolRegistry } from "../../src/tools/registry.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";

const WEATHER: ToolDefinition = {
  type: "function",
  function: {
    name: "get_current_temperature",
    description: "…",
    parameters: {
      type: "object",
      properties: { location: { type: "string" }, unit: { type: "string" } },
      defaults: { unit: "Celsius" },
    },
  },
};

const CHAT: Message[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "weather?" },
  {
    role: "function_call",
    content: JSON.stringify({
      name: "get_current_temperature",
      arguments: { location: "London", unit: "Celsius" },
      id: "call_mock_1",
    }),
  },
  {
    role: "function_call_output",
    content: JSON.stringify({
      name: "get_current_temperature",
      content: "It's 15 degrees and raining.",
      id: "call_mock_1",
      start_timestamp: "2025-01-01T00:00:00.000Z",
      timestamp: "2025-01-01T00:00:01.000Z",
    }),
  },
];

function req(messages: Message[], extra: Partial<BackendRequest> = {}): BackendRequest {
  return { messages, tools: [], params: {}, stream: false, ...extra };
}

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

Deno.test("Anthropic: top-level system, tool_use/tool_result with content ([TS-FIX]), same roles merged", () => {
  const { system, messages } = anthropicMessages([
    { role: "system", content: "one" },
    { role: "system", content: "two" },
    ...CHAT.slice(1),
    { role: "assistant", content: "It is raining." },
    { role: "user", content: "thanks" },
  ]);
  assert.equal(system, "one\n\ntwo");
  assert.deepEqual(messages, [
    { role: "user", content: [{ type: "text", text: "weather?" }] },
    {
      role: "assistant",
      content: [{
        type: "tool_use",
        id: "call_mock_1",
        name: "get_current_temperature",
        input: { location: "London", unit: "Celsius" },
      }],
    },
    {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "call_mock_1",
        content: "It's 15 degrees and raining.",
      }],
    },
    { role: "assistant", content: [{ type: "text", text: "It is raining." }] },
    { role: "user", content: [{ type: "text", text: "thanks" }] },
  ]);
  const tools = anthropicTools([{ type: "function", function: { name: "x" } }]);
  assert.deepEqual(tools, [{
    name: "x",
    description: "",
    input_schema: { type: "object", properties: {} },
  }]);
});

Deno.test("Anthropic body: max_tokens default 1000, format → system instruction ([TS-FIX])", () => {
  const b = anthropicBody(
    req([{ role: "user", content: "q" }], {
      text: { format: { type: "json_schema", name: "r", schema: { type: "object" } } },
    }),
    "claude",
  );
  assert.equal(b.max_tokens, 1000);
  assert.match(String(b.system), /Reply with one JSON object only.*\n\{"type":"object"\}/s);
  assert.equal("response_format" in b, false);
  assert.equal(anthropicUrl(undefined), "https://api.anthropic.com/v1/messages");
  assert.equal(anthropicUrl("http://h:1/v1"), "http://h:1/v1/messages");
});

Deno.test("Anthropic reply: thinking → reasoning, tool_use → call, unknown block warned", () => {
  const warnings: string[] = [];
  const r = anthropicReply({
    id: "msg_1",
    content: [
      { type: "thinking", thinking: "plan" },
      { type: "text", text: "ok" },
      { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
      { type: "mystery" },
    ],
    usage: {
      input_tokens: 30,
      output_tokens: 14,
      cache_read_input_tokens: 2,
      cache_creation_input_tokens: 1,
    },
  }, (m) => warnings.push(m));
  assert.equal(r.reasoning, "plan");
  assert.deepEqual(r.items, [{ type: "text", text: "ok" }, {
    type: "call",
    name: "f",
    arguments: { a: 1 },
    id: "toolu_1",
  }]);
  assert.equal(warnings.length, 1);
  assert.throws(
    () => anthropicReply({ type: "error", error: { message: "overloaded" } }),
    /overloaded/,
  );
});

Deno.test("Ollama: call id = <name>_<md5 of the digest string> (spec fixture), _<index> on collisions", () => {
  assert.equal(
    argumentDigest({ location: "London", unit: "Celsius" }),
    "{location=London, unit=Celsius}",
  );
  assert.equal(argumentDigest(["", "a"]), "[a]");
  assert.equal(
    argumentDigest({ f: 1.5, g: 0.5, h: 12.25, i: 2.0, n: null }),
    "{f=1.500, g=0.500000, h=12.3, i=2, n=nil}",
  );
  const call = {
    function: {
      name: "get_current_temperature",
      arguments: { location: "London", unit: "Celsius" },
    },
  };
  const r = ollamaReply({
    message: { role: "assistant", content: "checking", tool_calls: [call, call] },
    prompt_eval_count: 26,
    eval_count: 298,
  });
  assert.deepEqual(r.items.map((i) => i.type === "call" ? i.id : i.type), [
    "text",
    "get_current_temperature_f0bb78010d7a5ec6bf1cc29a2b4d38e2",
    "get_current_temperature_f0bb78010d7a5ec6bf1cc29a2b4d38e2_1",
  ]);
  assert.deepEqual(r.usage, { prompt_tokens: 26, completion_tokens: 298 });
});

Deno.test("Ollama body: tool messages carry tool_name ([TS-FIX]); sampling params go into options", () => {
  const b = ollamaBody(
    req(CHAT, {
      params: { temperature: 0.1, keep_alive: "5m" },
      text: { format: { type: "json_object" } },
    }),
    "llama3.1",
  );
  assert.deepEqual((b.messages as unknown[]).slice(2), [
    {
      role: "assistant",
      content: "",
      tool_calls: [{
        type: "function",
        function: {
          name: "get_current_temperature",
          arguments: { location: "London", unit: "Celsius" },
        },
      }],
    },
    { role: "tool", content: "It's 15 degrees and raining.", tool_name: "get_current_temperature" },
  ]);
  assert.deepEqual(b.options, { temperature: 0.1 });
  assert.equal(b.keep_alive, "5m");
  assert.equal(b.format, "json");
  assert.equal(b.stream, false);
  assert.throws(
    () => ollamaBody(req([{ role: "pdf", content: "/x.pdf" }]), "m"),
    /cannot read PDFs/,
  );
});

Deno.test("vLLM tool-name cleanup and the OpenAI base url rule (§1.4, §3.5)", () => {
  assert.equal(cleanToolName("get_weather<|channel|>commentary"), "get_weather");
  assert.equal(cleanToolName("plain_name"), "plain_name");
  assert.equal(openaiBaseUrl("http://host:8000"), "http://host:8000/v1");
  assert.equal(openaiBaseUrl("http://host:8000/v1"), "http://host:8000/v1");
  assert.equal(openaiBaseUrl("http://host:8000/", "v2"), "http://host:8000/v2");
  assert.equal(openaiBaseUrl(undefined), undefined);
});

Deno.test("images and PDFs: data URLs, content parts per backend, missing files are typed errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/p.png`, new Uint8Array([137, 80, 78, 71]));
    const img: Message = { role: "image", content: `${dir}/p.png` };
    const r = responsesInput([img]).input[0] as { content: Array<{ image_url: string }> };
    assert.equal(r.content[0]!.image_url, "data:image/png;base64,iVBORw==");
    const c = chatMessages([img])[0] as { content: Array<{ image_url: { url: string } }> };
    assert.equal(c.content[0]!.image_url.url, "data:image/png;base64,iVBORw==");
    const a = anthropicMessages([img]).messages[0]!.content[0] as {
      source: Record<string, string>;
    };
    assert.deepEqual(a.source, { type: "base64", media_type: "image/png", data: "iVBORw==" });
    assert.deepEqual(responsesInput([{ role: "image", content: "https://x/y.png" }]).input[0], {
      role: "user",
      content: [{ type: "input_image", image_url: "https://x/y.png" }],
    });
    assert.throws(
      () => responsesInput([{ role: "image", content: `${dir}/missing.png` }]),
      (e) => isScoutError(e, "file_not_found"),
    );
    assert.throws(
      () => responsesInput([{ role: "image", content: `${dir}/p.bmp` }]),
      /Unsupported image type/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
