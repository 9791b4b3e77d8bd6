/**
 * Extended thinking with tools (R83-10): Anthropic, and Bedrock's Anthropic
 * models (InvokeModel and Converse), refuse the next round of a tool-use turn
 * unless its assistant message starts with the reply's signed thinking
 * blocks. The loopback provider enforces that rule and checks signatures
 * (`thinking_rule.ts`). The blocks travel in memory with the reply's
 * messages and in the inference cache's round entries, never in the chat.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { cacheDir } from "../../src/llm/cache.ts";
import { tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { missingThinkingMessage, thinkingSignature } from "../support/thinking_rule.ts";
import { ANTHROPIC_ROUTES, echoTool, KEY, opts } from "./ask_support.ts";

const THINKING = { type: "enabled", budget_tokens: 1024 };
const PLAN = "The user asks about eggs; I should look them up.";
const q: Message[] = [{ role: "user", content: "How many eggs?" }];

/** The three ways to an Anthropic model: its API, and Bedrock's two. */
const ROUTES = ANTHROPIC_ROUTES;

type Turn = { role: string; content: Record<string, unknown>[] };

/** The assistant message of the second request, as sent. */
function sentAssistant(srv: ProviderServer, i = 1): Record<string, unknown>[] {
  const turns = srv.requests[i]!.body.messages as Turn[];
  return turns.find((t) => t.role === "assistant")!.content;
}

const thinkingBlock = (text: string) => ({
  type: "thinking",
  thinking: text,
  signature: thinkingSignature(text),
});

for (const [route, options] of Object.entries(ROUTES)) {
  for (const stream of [false, true]) {
    Deno.test(`${route}${stream ? ", streamed" : ""}: thinking with tools — round 2 sends the signed thinking back first; the chat gets none of it`, async () => {
      await using home = await tempDir();
      await using srv = await startProviderServer();
      srv.script(
        {
          reasoning: PLAN,
          text: "Let me look.",
          toolCalls: [{ name: "lookup", arguments: { q: "eggs" }, id: "tu_1" }],
        },
        { text: "Four eggs." },
      );
      const r = await ask(q, {
        ...options(srv, home.path),
        stream,
        thinking: THINKING,
        tools: echoTool(),
      });
      assert.equal(r.text, "Four eggs.");
      assert.equal(srv.requests.length, 2);
      const sent = sentAssistant(srv);
      if (route === "bedrock converse") {
        assert.deepEqual(sent.slice(0, 2), [
          {
            reasoningContent: { reasoningText: { text: PLAN, signature: thinkingSignature(PLAN) } },
          },
          { text: "Let me look." },
        ]);
      } else {
        assert.deepEqual(sent.slice(0, 2), [thinkingBlock(PLAN), {
          type: "text",
          text: "Let me look.",
        }]);
      }
      // the chat stays plain: no block, no signature in its text or JSON
      const chat = print(r.messages);
      assert.doesNotMatch(chat + JSON.stringify(r.messages), /signature|EqQBsig/);
      assert.match(chat, /reas=The user asks about eggs/);
    });
  }
}

Deno.test("anthropic: redacted thinking goes back too, in its place, unchanged", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    {
      reasoning: PLAN,
      redactedThinking: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
      toolCalls: [{ name: "lookup", arguments: { q: "eggs" }, id: "tu_1" }],
    },
    { text: "Four eggs." },
  );
  await ask(q, { ...opts(srv, "anthropic", home.path), thinking: THINKING, tools: echoTool() });
  assert.deepEqual(sentAssistant(srv), [
    thinkingBlock(PLAN),
    {
      type: "redacted_thinking",
      data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
    },
    { type: "tool_use", id: "tu_1", name: "lookup", input: { q: "eggs" } },
  ]);
});

for (const stream of [false, true]) {
  Deno.test(`anthropic${stream ? ", streamed" : ""}: a cached round 1 gives its thinking back, so a live round 2 is taken`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const call = { name: "lookup", arguments: { q: "eggs" }, id: "tu_1" };
    srv.script({ reasoning: PLAN, toolCalls: [call] }, { text: "Four eggs." });
    const o = { ...opts(srv, "anthropic", home.path), stream, persist: true, thinking: THINKING };
    await ask(q, { ...o, tools: echoTool() });
    const entries: string[] = [];
    for await (const e of Deno.readDir(cacheDir(home.path))) {
      if (e.name.endsWith(".json")) {
        entries.push(await Deno.readTextFile(join(cacheDir(home.path), e.name)));
      }
    }
    const round1 = entries.map((t) => JSON.parse(t)).find((e) => e.round === 1);
    assert.deepEqual(round1.items, [{ type: "call", ...call, thinking: [thinkingBlock(PLAN)] }]);
    // another tool output: round 1 is replayed from the cache, round 2 is a new request
    srv.script({ text: "Five eggs." });
    const changed = {
      lookup: [() => "found 5", {
        name: "lookup",
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      }],
    } as AskOptions["tools"];
    const r = await ask(q, { ...o, tools: changed });
    assert.equal(srv.requests.length, 3); // round 1 came from the cache
    assert.equal(r.text, "Five eggs.");
    assert.deepEqual(sentAssistant(srv, 2)[0], thinkingBlock(PLAN));
  });
}

Deno.test("anthropic: in a three-round loop the turn's first assistant message keeps its thinking", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    { reasoning: PLAN, toolCalls: [{ name: "lookup", arguments: { q: "eggs" }, id: "tu_1" }] },
    // no thinking after tool results (thinking is not interleaved)
    { toolCalls: [{ name: "lookup", arguments: { q: "milk" }, id: "tu_2" }] },
    { text: "Four eggs, some milk." },
  );
  const r = await ask(q, {
    ...opts(srv, "anthropic", home.path),
    thinking: THINKING,
    tools: echoTool(),
  });
  assert.equal(r.text, "Four eggs, some milk.");
  const turns = srv.requests[2]!.body.messages as Turn[];
  assert.deepEqual(turns.map((t) => [t.role, t.content.map((b) => b.type).join(",")]), [
    ["user", "text"],
    ["assistant", "thinking,tool_use"],
    ["user", "tool_result"],
    ["assistant", "tool_use"],
    ["user", "tool_result"],
  ]);
});

Deno.test("anthropic: thinking of a reply without a tool call is not kept (a finished turn needs none)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ reasoning: PLAN, text: "Four eggs." }, { text: "Yes." });
  const first = await ask(q, { ...opts(srv, "anthropic", home.path), thinking: THINKING });
  const next = [...q, ...first.messages, { role: "user", content: "Sure?" }];
  await ask(next, { ...opts(srv, "anthropic", home.path), thinking: THINKING });
  assert.deepEqual(sentAssistant(srv), [{ type: "text", text: "Four eggs." }]);
});

Deno.test("anthropic: a chat read back that ends inside a tool-use turn has no thinking to send: the provider's 400, as before; without thinking it goes on", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const chat = parse(
    "user:\n\nHow many eggs?\n\n" +
      'function_call:\n\n{"name":"lookup","arguments":{"q":"eggs"},"id":"tu_1"}\n\n' +
      'function_call_output:\n\n{"name":"lookup","content":"found eggs","id":"tu_1"}\n',
  );
  srv.script({ text: "Four eggs." });
  await assert.rejects(
    () =>
      ask(chat, { ...opts(srv, "anthropic", home.path), thinking: THINKING, tools: echoTool() }),
    (e) => {
      assert.ok(isScoutError(e, "provider_http"));
      // the provider's own words (cut by the error's length limit)
      assert.ok(e.message.includes(missingThinkingMessage(1, "tool_use").slice(0, 200)), e.message);
      assert.doesNotMatch(e.message, new RegExp(KEY));
      return true;
    },
  );
  const r = await ask(chat, { ...opts(srv, "anthropic", home.path), tools: echoTool() });
  assert.equal(r.text, "Four eggs.");
});
