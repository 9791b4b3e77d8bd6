/**
 * Parallel tool calls go back to Anthropic as one turn (R113-1, [TS-FIX]; Ruby
 * sends one assistant message per call): the calls a reply made together are
 * one assistant message — its thinking and text first, as they came — and
 * their results one user message, in call order, as Anthropic's parallel
 * tool use asks. Calls of different replies (sequential rounds) stay in their
 * own turns. Live loops against the loopback provider, which records the
 * bodies and enforces the thinking rule (`thinking_rule.ts`); Anthropic's API
 * and Bedrock's two ways to an Anthropic model. Saved chats: `parallel_tool_calls_chat_test.ts`.
 */
import assert from "node:assert/strict";
import { ask } from "../../src/llm/ask.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { opts } from "./ask_support.ts";
import {
  CALL_A,
  CALL_B,
  PLAN,
  q,
  ROUTES,
  THINKING,
  turnShape,
  weatherTools,
} from "./parallel_calls_support.ts";

type Turn = { role: string; content: Record<string, unknown>[] };

for (const [route, options] of Object.entries(ROUTES)) {
  for (const stream of route === "anthropic" ? [false, true] : [true]) {
    Deno.test(`${route}${stream ? ", streamed" : ""}: a reply's two calls go back as one assistant turn, their results as one user turn [TS-FIX]`, async () => {
      await using home = await tempDir();
      await using srv = await startProviderServer();
      srv.script(
        { reasoning: PLAN, toolCalls: [CALL_A, CALL_B] },
        { text: "15 degrees, noon." },
      );
      const r = await ask(q, {
        ...options(srv, home.path),
        stream,
        thinking: THINKING,
        tools: weatherTools(),
      });
      assert.equal(r.text, "15 degrees, noon.");
      assert.equal(srv.requests.length, 2);
      assert.deepEqual(turnShape(srv.requests[1]!.body), [
        "user: text",
        "assistant: thinking, tool_use:toolu_A, tool_use:toolu_B",
        "user: tool_result:toolu_A, tool_result:toolu_B",
      ]);
      // the chat keeps its shape: one call, its output, the next call, its output
      assert.deepEqual(r.messages.map((m) => m.role), [
        "meta",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
        "meta",
        "assistant",
      ]);
    });
  }
}

Deno.test("anthropic: the reply's text stays before its calls, in the same assistant turn", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    { reasoning: PLAN, text: "Looking both up.", toolCalls: [CALL_A, CALL_B] },
    { text: "Done." },
  );
  await ask(q, { ...opts(srv, "anthropic", home.path), thinking: THINKING, tools: weatherTools() });
  const turns = srv.requests[1]!.body.messages as Turn[];
  assert.deepEqual(turnShape(srv.requests[1]!.body).slice(1), [
    "assistant: thinking, text, tool_use:toolu_A, tool_use:toolu_B",
    "user: tool_result:toolu_A, tool_result:toolu_B",
  ]);
  assert.deepEqual(turns[2]!.content.map((b) => b.content), [
    "15 degrees in Paris",
    "noon in Paris",
  ]);
});

Deno.test("anthropic: two rounds of two calls each — each round is its own pair of turns", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    { reasoning: PLAN, toolCalls: [CALL_A, CALL_B] },
    {
      toolCalls: [
        { ...CALL_A, arguments: { city: "Rome" }, id: "toolu_C" },
        { ...CALL_B, arguments: { city: "Rome" }, id: "toolu_D" },
      ],
    },
    { text: "Done." },
  );
  await ask(q, { ...opts(srv, "anthropic", home.path), thinking: THINKING, tools: weatherTools() });
  assert.deepEqual(turnShape(srv.requests[2]!.body), [
    "user: text",
    "assistant: thinking, tool_use:toolu_A, tool_use:toolu_B",
    "user: tool_result:toolu_A, tool_result:toolu_B",
    "assistant: tool_use:toolu_C, tool_use:toolu_D",
    "user: tool_result:toolu_C, tool_result:toolu_D",
  ]);
});

Deno.test("anthropic: the live loop groups without meta records too (log_response off)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ reasoning: PLAN, toolCalls: [CALL_A, CALL_B] }, { text: "Done." });
  const r = await ask(q, {
    ...opts(srv, "anthropic", home.path),
    thinking: THINKING,
    tools: weatherTools(),
    log_response: false,
  });
  assert.ok(!r.messages.some((m) => m.role === "meta"));
  assert.deepEqual(turnShape(srv.requests[1]!.body).slice(1), [
    "assistant: thinking, tool_use:toolu_A, tool_use:toolu_B",
    "user: tool_result:toolu_A, tool_result:toolu_B",
  ]);
});
