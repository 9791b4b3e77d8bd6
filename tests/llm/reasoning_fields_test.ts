/**
 * Reasoning in the fields servers use now (R83-11) reaches the meta's `reas`:
 * Chat Completions `reasoning` (vLLM, OpenRouter, Groq, Ollama) beside
 * `reasoning_content`, in replies and stream deltas; vLLM's Responses
 * `reasoning` items, whose text is in `content[]` (`reasoning_text`).
 */
import assert from "node:assert/strict";
import { parseMeta } from "../../src/chat/meta.ts";
import { ask } from "../../src/llm/ask.ts";
import type { Piece } from "../support/protocol_parts.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { opts, question } from "./ask_support.ts";

const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };

/** Asks once with `step` scripted and returns the answer and its meta. */
async function answer(backend: string, step: Record<string, unknown>, stream = false) {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(step);
  const r = await ask(question, opts(srv, backend, home.path, { stream }));
  return { text: r.text, meta: parseMeta(String(r.messages[0]!.content)) };
}

Deno.test("openai: a reply's message.reasoning becomes reas", async () => {
  const got = await answer("openai", {
    raw: {
      id: "c1",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "answer", reasoning: "thinking\nhard" },
        finish_reason: "stop",
      }],
      usage,
    },
  });
  assert.equal(got.text, "answer");
  assert.equal(got.meta.reas, "thinking hard");
});

Deno.test("openai stream: reasoning deltas in either field are kept, a delta with both once", async () => {
  const base = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };
  const chunk = (delta: unknown, finish_reason: string | null = null): Piece => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason }] },
  });
  const got = await answer("openai", {
    pieces: [
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning: "think A " }),
      chunk({ reasoning_content: "think B " }),
      chunk({ reasoning: "think C", reasoning_content: "think C" }),
      chunk({ content: "answer" }),
      chunk({}, "stop"),
      { data: { ...base, choices: [], usage } },
      { data: "[DONE]" },
    ],
  }, true);
  assert.equal(got.text, "answer");
  assert.equal(got.meta.reas, "think A think B think C");
});

Deno.test("vllm: a reasoning item's reasoning_text content becomes reas", async () => {
  const got = await answer("vllm", {
    raw: {
      id: "resp_1",
      object: "response",
      status: "completed",
      output: [
        {
          type: "reasoning",
          id: "rs_1",
          summary: [],
          content: [{ type: "reasoning_text", text: "The user greets me." }],
        },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          content: [{ type: "output_text", text: "Hello!" }],
        },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    },
  });
  assert.equal(got.text, "Hello!");
  assert.equal(got.meta.reas, "The user greets me.");
});
