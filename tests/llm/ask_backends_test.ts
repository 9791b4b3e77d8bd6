/**
 * Every backend end to end through its real client (the `openai` SDK or our
 * fetch adapters) against the loopback provider server: plain answers,
 * usage → meta, streaming, the multi-round tool loop, cache hits.
 */
import assert from "node:assert/strict";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { ask } from "../../src/llm/ask.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { BACKENDS, KEY, opts } from "./ask_support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const question: Message[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "What is the weather in London?" },
];

const weatherTools = () => {
  const seen: Record<string, unknown>[] = [];
  const registry = toolRegistry({
    get_current_temperature: [
      (_n, a) => {
        seen.push(a);
        return `It's 15 degrees and raining in ${a.location}.`;
      },
      {
        name: "get_current_temperature",
        description: "Current temperature",
        parameters: {
          type: "object",
          properties: { location: { type: "string" }, unit: { type: "string" } },
          required: ["location"],
          defaults: { unit: "Celsius" },
        },
      },
    ],
  });
  return { registry, seen };
};

for (const backend of BACKENDS) {
  Deno.test(`${backend}: plain answer, usage → meta fields, request shape`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({
      text: "Cloudy, 15 °C.",
      usage: { pt: 12, ct: 8, cct: 4 },
      id: backend === "ollama" ? undefined : "prov_1",
    });
    const r = await ask(question, opts(srv, backend, home.path, { temperature: "0.5" }));
    assert.equal(r.text, "Cloudy, 15 °C.");
    assert.equal(r.cached, false);
    assert.equal(r.backend, backend);
    assert.equal(r.model, "test-model");
    assert.deepEqual(
      r.messages.map((m) => m.role),
      ["meta", "assistant"].concat(
        backend === "responses" || backend === "vllm" ? ["previous_response_id"] : [],
      ),
    );
    const meta = parseMeta(String(r.messages[0]!.content));
    assert.equal(meta.pt, 12);
    assert.equal(meta.ct, 8);
    assert.equal(meta.tt, 20);
    assert.equal(meta.pt_c, 12);
    assert.equal(meta.cwt_c, 0);
    assert.equal(meta.pt_s, 12);
    if (backend !== "ollama") {
      assert.equal(meta.cct, 4);
      assert.equal(meta.provider_response_id, "prov_1");
    } else assert.equal(meta.provider_response_id, undefined);
    assert.match(String(meta.inference_id), UUID);
    assert.match(String(meta.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    assert.equal(srv.requests.length, 1);
    const req = srv.requests[0]!;
    assert.equal(req.body.model, "test-model");
    assert.equal(req.stream, false);
    if (backend === "anthropic") {
      assert.equal(req.headers["x-api-key"], KEY);
      assert.equal(req.body.system, "be brief");
      assert.equal(req.body.temperature, 0.5);
    } else if (backend === "ollama") {
      assert.deepEqual(req.body.options, { temperature: 0.5 });
      assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    } else {
      assert.equal(req.headers.authorization, `Bearer ${KEY}`);
      assert.equal(req.body.temperature, 0.5);
      assert.equal(req.path, backend === "openai" ? "/v1/chat/completions" : "/v1/responses");
    }
  });

  Deno.test(`${backend}: streaming deltas add up to the answer; usage from the final event`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: ["Clo", "udy, ", "15 °C."], usage: { pt: 3, ct: 2 } });
    const deltas: string[] = [];
    const r = await ask(
      question,
      opts(srv, backend, home.path, {
        stream: true,
        onEvent: (e) => e.type === "text" && deltas.push(e.delta),
      }),
    );
    assert.deepEqual(deltas, ["Clo", "udy, ", "15 °C."]);
    assert.equal(r.text, "Clo" + "udy, 15 °C.");
    assert.equal(srv.requests[0]!.stream, true);
    if (backend === "openai") {
      assert.deepEqual(srv.requests[0]!.body.stream_options, { include_usage: true });
    }
    const meta = parseMeta(String(r.messages[0]!.content));
    assert.equal(meta.pt, 3);
    assert.equal(meta.ct, 2);
  });

  Deno.test(`${backend}: multi-round tool loop (two tool rounds, then the answer)`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script(
      {
        text: backend === "ollama" || backend === "anthropic" ? "Let me check." : undefined,
        toolCalls: [{
          name: "get_current_temperature",
          arguments: { location: "London", unit: "Fahrenheit" },
          id: backend === "ollama" ? undefined : "call_a",
        }],
        usage: { pt: 10, ct: 5 },
      },
      {
        toolCalls: [
          {
            name: "get_current_temperature",
            arguments: { location: "Paris" },
            id: backend === "ollama" ? undefined : "call_b",
          },
          {
            name: "get_current_temperature",
            arguments: { location: "Rome" },
            id: backend === "ollama" ? undefined : "call_c",
          },
        ],
        usage: { pt: 20, ct: 6 },
      },
      { text: "London 15, Paris 15, Rome 15.", usage: { pt: 30, ct: 7 } },
    );
    const { registry, seen } = weatherTools();
    const strategyRounds: number[] = [];
    const r = await ask(
      question,
      opts(srv, backend, home.path, {
        tools: registry,
        prompt_strategies: (ms: readonly Message[]) => {
          strategyRounds.push(ms.length);
          return ms.slice();
        },
      }),
    );
    assert.equal(r.text, "London 15, Paris 15, Rome 15.");
    // pinned unit wins at call time
    assert.deepEqual(seen, [
      { location: "London", unit: "Celsius" },
      { location: "Paris", unit: "Celsius" },
      { location: "Rome", unit: "Celsius" },
    ]);
    const roles = r.messages.map((m) => m.role).filter((x) => x !== "previous_response_id");
    const lead = backend === "ollama" || backend === "anthropic" ? ["assistant"] : [];
    assert.deepEqual(roles, [
      "meta",
      ...lead,
      "function_call",
      "function_call_output",
      "meta",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "meta",
      "assistant",
    ]);
    // chat totals accumulate round by round
    const metas = r.messages.filter((m) => m.role === "meta").map((m) =>
      parseMeta(String(m.content))
    );
    assert.deepEqual(metas.map((m) => m.pt_c), [10, 30, 60]);
    assert.deepEqual(metas.map((m) => m.ct_c), [5, 11, 18]);
    assert.equal(new Set(metas.map((m) => m.inference_id)).size, 3);
    // strategies ran on every round ([TS-FIX])
    assert.equal(strategyRounds.length, 3);
    // the provider saw the tool outputs in round 2 and 3
    assert.equal(srv.requests.length, 3);
    const r2 = JSON.stringify(srv.requests[1]!.body);
    assert.ok(r2.includes("It's 15 degrees and raining in London."), r2);
    assert.ok(!JSON.stringify(srv.requests[0]!.body).includes("defaults"));
    const threaded = backend === "responses" || backend === "vllm";
    if (threaded) {
      // threading: round 2 continues from round 1's id and sends only the new pairs
      assert.equal(srv.requests[1]!.body.previous_response_id, metas[0]!.provider_response_id);
      assert.equal(srv.requests[2]!.body.previous_response_id, metas[1]!.provider_response_id);
      const input = srv.requests[1]!.body.input as Array<Record<string, unknown>>;
      assert.deepEqual(input.map((i) => i.type), ["function_call", "function_call_output"]);
      assert.equal(r.messages.at(-1)!.role, "previous_response_id");
      assert.equal(r.messages.at(-1)!.content, metas[2]!.provider_response_id);
    } else {
      const msgs = JSON.stringify(srv.requests[2]!.body);
      assert.ok(msgs.includes("What is the weather in London?") && msgs.includes("Rome"));
    }
  });

  Deno.test(`${backend}: cache hit replays the messages (same inference_id) without calling the provider`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "first answer" });
    const o = opts(srv, backend, home.path, { persist: undefined });
    const first = await ask(question, o);
    const events: string[] = [];
    const second = await ask(question, {
      ...o,
      onEvent: (e) => e.type === "cache" && events.push(String(e.hit)),
    });
    assert.equal(srv.requests.length, 1);
    assert.equal(second.cached, true);
    assert.deepEqual(second.messages, first.messages);
    assert.deepEqual(events, ["true"]);
    // persist: false and cache: false both bypass it
    srv.script({ text: "fresh" }, { text: "fresh again" });
    assert.equal((await ask(question, { ...o, persist: "false" })).text, "fresh");
    assert.equal((await ask(question, { ...o, cache: false })).text, "fresh again");
    assert.equal(srv.requests.length, 3);
  });
}

Deno.test("responses: a chat's previous_response_id is sent when backend responses is explicit, else dropped", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "one", id: "resp_A" });
  const first = await ask(question, opts(srv, "responses", home.path));
  const chat: Message[] = [...question, ...first.messages, {
    role: "user",
    content: "and tomorrow?",
  }];
  srv.script({ text: "two" });
  const second = await ask(chat, opts(srv, "responses", home.path));
  assert.equal(second.text, "two");
  const body = srv.requests[1]!.body;
  assert.equal(body.previous_response_id, "resp_A");
  assert.deepEqual(body.input, [{ role: "user", content: "and tomorrow?" }]);
  // not explicit (default backend from env) → the id is dropped and the full history sent
  srv.script({ text: "three" });
  const o = opts(srv, "responses", home.path);
  delete o.backend;
  await ask(chat, { ...o, env: { SCOUT_HOME: home.path, OPENAI_URL: "unused" } });
  const full = srv.requests[2]!.body;
  assert.equal(full.previous_response_id, undefined);
  assert.equal((full.input as unknown[]).length, 4);
  // previous_response: false turns threading off entirely
  srv.script({ text: "four" });
  const four = await ask(chat, opts(srv, "responses", home.path, { previous_response: "false" }));
  assert.equal(srv.requests[3]!.body.previous_response_id, undefined);
  assert.equal(four.messages.some((m) => m.role === "previous_response_id"), false);
});

Deno.test("responses: hosted mcp_call is recorded as a pair, not executed, and does not loop", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({
    text: "Done remotely.",
    extraItems: [{
      type: "mcp_call",
      id: "mcp_1",
      name: "remote_search",
      arguments: '{"q":"x"}',
      output: "3 hits",
    }],
  });
  const r = await ask(question, opts(srv, "responses", home.path));
  assert.equal(srv.requests.length, 1);
  const fco = r.messages.find((m) => m.role === "function_call_output")!;
  assert.equal(JSON.parse(String(fco.content)).content, "3 hits");
  assert.equal(r.text, "");
});

Deno.test("log_response: false writes no meta", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "quiet" });
  const r = await ask(question, opts(srv, "openai", home.path, { log_response: "false" }));
  assert.deepEqual(r.messages, [{ role: "assistant", content: "quiet" }]);
});

Deno.test("chat totals continue from the chat's current meta", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "x", usage: { pt: 5, ct: 1 } });
  const chat: Message[] = [
    { role: "user", content: "a" },
    {
      role: "meta",
      content: "pt=100 ct=10 tt=110 pt_c=100 ct_c=10 tt_c=110 cct_c=0 cwt_c=0 rt_c=0",
    },
    { role: "assistant", content: "b" },
    { role: "meta", content: "job=Wf/task/Default" },
    { role: "user", content: "c" },
  ];
  const r = await ask(chat, opts(srv, "openai", home.path));
  const m = parseMeta(String(r.messages[0]!.content));
  assert.equal(m.pt_c, 105);
  assert.equal(m.tt_c, 116);
  // metas are never sent
  assert.ok(!JSON.stringify(srv.requests[0]!.body).includes("pt_c"));
});

Deno.test("identical concurrent asks run once (per-key cache lock)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "shared", delayMs: 100 }, { text: "unexpected second call" });
  const o = opts(srv, "openai", home.path, { persist: undefined });
  const [a, b] = await Promise.all([ask(question, o), ask(question, o)]);
  assert.equal(srv.requests.length, 1);
  assert.equal(a.text, "shared");
  assert.deepEqual(b.messages, a.messages);
  assert.equal([a.cached, b.cached].filter(Boolean).length, 1);
});

Deno.test("websearch option adds the provider's hosted search tool (responses)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "found" });
  await ask(question, opts(srv, "responses", home.path, { websearch: "true" }));
  assert.deepEqual(srv.requests[0]!.body.tools, [{ type: "web_search_preview" }]);
  assert.equal(srv.requests[0]!.body.websearch, undefined);
});

Deno.test("openwebui: Chat Completions at {url}/chat/completions; calls without ids get <name>_<md5 digest>", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    {
      raw: {
        id: "owui-1",
        choices: [{
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{
              type: "function",
              function: {
                name: "get_current_temperature",
                arguments: '{"location":"London","unit":"Celsius"}',
              },
            }],
          },
        }],
        usage: { prompt_tokens: 3, completion_tokens: 1 },
      },
    },
    { text: "15 degrees." },
  );
  const { registry } = weatherTools();
  const r = await ask(
    question,
    opts(srv, "openwebui", home.path, { url: `${srv.url}/api`, tools: registry }),
  );
  assert.equal(r.text, "15 degrees.");
  assert.equal(srv.requests[0]!.path, "/api/chat/completions");
  const call = JSON.parse(String(r.messages.find((m) => m.role === "function_call")!.content));
  assert.equal(call.id, "get_current_temperature_f0bb78010d7a5ec6bf1cc29a2b4d38e2");
});

Deno.test("the ask's prompt-strategy settings are part of the cache key (they change what is sent)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "default settings" }, { text: "small max_tool_chars" });
  const o = opts(srv, "openai", home.path, { persist: undefined });
  assert.equal((await ask(question, o)).text, "default settings");
  const small = await ask(question, { ...o, max_tool_chars: "10" });
  assert.equal(small.cached, false);
  assert.equal(small.text, "small max_tool_chars");
  assert.equal((await ask(question, { ...o, max_tool_chars: "10" })).cached, true);
  assert.equal((await ask(question, o)).text, "default settings");
  assert.equal(srv.requests.length, 2);
});
