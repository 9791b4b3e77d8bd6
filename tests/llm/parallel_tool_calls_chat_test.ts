/**
 * Parallel tool calls of a saved chat go back to Anthropic as one turn
 * (R113-1, [TS-FIX]): a chat keeps a reply's calls as call, output, call,
 * output, and its `meta` line opens the reply's messages, so the calls between
 * one meta and the next (within the reply's own messages) were made together.
 * A chat without meta lines gives no such boundary and is sent as before (one
 * turn per call); sequential rounds, each opened by its meta, stay apart. The
 * chats are written by a live ask, read back and continued — in-process and
 * with `llm ask -c` — against the loopback provider, which records the bodies.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { print } from "../../src/chat/print.ts";
import type { Message } from "../../src/chat/types.ts";
import { ask } from "../../src/llm/ask.ts";
import { cacheKey, roundCacheKey } from "../../src/llm/cache_key.ts";
import { markChatReplies, replyOf } from "../../src/llm/reply_calls.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ScriptStep, startProviderServer } from "../support/provider_server.ts";
import { KEY, opts } from "./ask_support.ts";
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

const NEXT: Message = { role: "user", content: "And in Rome?" };
const GROUPED = [
  "user: text",
  "assistant: tool_use:toolu_A, tool_use:toolu_B",
  "user: tool_result:toolu_A, tool_result:toolu_B",
  "assistant: text",
  "user: text",
];
const ONE_BY_ONE = [
  "user: text",
  "assistant: tool_use:toolu_A",
  "user: tool_result:toolu_A",
  "assistant: tool_use:toolu_B",
  "user: tool_result:toolu_B",
  "assistant: text",
  "user: text",
];

/** A live ask's chat (question and answer) as its file text: its meta lines in it. */
async function savedChat(...steps: ScriptStep[]): Promise<{ text: string; live: Message[] }> {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(...steps);
  const r = await ask(q, {
    ...opts(srv, "anthropic", home.path),
    thinking: THINKING,
    tools: weatherTools(),
  });
  return { text: print([...q, ...r.messages]), live: [...q, ...r.messages] };
}

const parallel = () =>
  savedChat({ reasoning: PLAN, toolCalls: [CALL_A, CALL_B] }, { text: "15 degrees, noon." });

/** The body of an ask of `chat` on `route` (a text reply). */
async function sent(route: string, chat: Message[]): Promise<Record<string, unknown>> {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "20 degrees, noon." });
  await ask(chat, { ...ROUTES[route]!(srv, home.path), tools: weatherTools() });
  return srv.requests[0]!.body;
}

for (const route of Object.keys(ROUTES)) {
  Deno.test(`${route}: a saved chat's parallel calls, read back, go as one turn [TS-FIX]`, async () => {
    const { text } = await parallel();
    assert.equal(text.match(/^meta:/gm)?.length, 2, text);
    assert.deepEqual(turnShape(await sent(route, [...parse(text), NEXT])), GROUPED);
  });
}

Deno.test("anthropic: the live chat continued in-process (its own message objects) is grouped too", async () => {
  const { live } = await parallel();
  // these messages still carry the reply's signed thinking (a file does not)
  assert.deepEqual(turnShape(await sent("anthropic", [...live, NEXT])), [
    GROUPED[0],
    "assistant: thinking, tool_use:toolu_A, tool_use:toolu_B",
    ...GROUPED.slice(2),
  ]);
});

Deno.test("anthropic: llm ask -c continues a saved chat with its parallel calls as one turn [TS-FIX]", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "20 degrees, noon." });
  mkdirSync(join(t.path, "home/etc/AI"), { recursive: true });
  writeFileSync(
    join(t.path, "home/etc/AI/ep.yaml"),
    `backend: anthropic\nurl: ${srv.url}\nmodel: test-model\n`,
  );
  const file = join(t.path, "weather.chat");
  writeFileSync(file, (await parallel()).text);
  const env = { SCOUT_HOME: join(t.path, "home"), ANTHROPIC_API_KEY: KEY };
  const args = ["llm", "ask", "-e", "ep", "--no-stream", "--no-cache", "-c", file];
  const r = await runMain([...args, "-o", file, "And in Rome?"], { env, cwd: t.path });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(turnShape(srv.requests[0]!.body), GROUPED);
  // the chat file keeps one message per call
  const roles = parse(readFileSync(file, "utf8")).map((m) => m.role);
  assert.deepEqual(roles.filter((m) => m.startsWith("function_call")), [
    "function_call",
    "function_call_output",
    "function_call",
    "function_call_output",
  ]);
});

Deno.test("anthropic: a chat without meta lines has no reply boundary: one turn per call, as before", async () => {
  const { text } = await parallel();
  const plain = parse(text).filter((m) => m.role !== "meta");
  assert.deepEqual(turnShape(await sent("anthropic", [...plain, NEXT])), ONE_BY_ONE);
});

Deno.test("anthropic: two sequential one-call rounds of a saved chat are not grouped", async () => {
  const { text } = await savedChat(
    { reasoning: PLAN, toolCalls: [CALL_A] },
    { toolCalls: [CALL_B] },
    { text: "15 degrees, noon." },
  );
  assert.equal(text.match(/^meta:/gm)?.length, 3, text);
  for (const chat of [parse(text), parse(text).filter((m) => m.role !== "meta")]) {
    assert.deepEqual(turnShape(await sent("anthropic", [...chat, NEXT])), ONE_BY_ONE);
  }
});

Deno.test("anthropic: calls after a user message are not part of the reply the meta before it opened", async () => {
  const chat = parse((await parallel()).text);
  // a hand-written continuation: a user message, then two more pairs (no meta before them)
  const again = chat.filter((m) => m.role.startsWith("function_call")).map((m) => ({
    role: m.role,
    content: String(m.content).replace("toolu_A", "toolu_C").replace("toolu_B", "toolu_D"),
  }));
  const later = [...chat, { role: "user", content: "Again." }, ...again, NEXT];
  assert.deepEqual(turnShape(await sent("anthropic", later)), [
    ...GROUPED.slice(0, 4),
    "user: text",
    "assistant: tool_use:toolu_C",
    "user: tool_result:toolu_C",
    "assistant: tool_use:toolu_D",
    "user: tool_result:toolu_D, text",
  ]);
});

Deno.test("the reply marks are in no cache key: a marked chat has the keys of its plain copy", async () => {
  const chat = [...parse((await parallel()).text), NEXT];
  markChatReplies(chat);
  const calls = chat.filter((m) => m.role === "function_call");
  assert.equal(calls.length, 2);
  assert.ok(replyOf(calls[0]!) && replyOf(calls[0]!) === replyOf(calls[1]!));
  const copy = chat.map((m) => ({ ...m }));
  assert.ok(!copy.some((m) => replyOf(m)));
  const base = { endpoint: "", backend: "anthropic", model: "m", params: {}, tools: [] };
  for (const key of [cacheKey, roundCacheKey]) {
    assert.equal(
      key({ ...base, messages: chat, currentMeta: null }),
      key({ ...base, messages: copy, currentMeta: null }),
    );
  }
});
