/**
 * Request and reply formats of the backends with their own protocols
 * (Anthropic, Ollama), vLLM's tool names, and images and PDFs per backend;
 * the OpenAI protocols are in backends_format_test.ts.
 */
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
import { chatMessages } from "../../src/llm/backends/openai.ts";
import { openaiBaseUrl } from "../../src/llm/backends/openai_sdk.ts";
import { argumentDigest, ollamaBody, ollamaReply } from "../../src/llm/backends/ollama.ts";
import { responsesInput } from "../../src/llm/backends/responses.ts";
import { cleanToolName } from "../../src/llm/backends/vllm.ts";
import { CHAT, req } from "./backends_format_support.ts";

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
    await Deno.mkdir(`${dir}/shots.png`);
    assert.throws( // a directory is not reported missing
      () => responsesInput([{ role: "image", content: `${dir}/shots.png` }]),
      (e) => isScoutError(e, "io") && /Is a directory, not a file: ".*shots\.png"/.test(e.message),
    );
    assert.throws(
      () => responsesInput([{ role: "image", content: `${dir}/p.bmp` }]),
      /Unsupported image type/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
