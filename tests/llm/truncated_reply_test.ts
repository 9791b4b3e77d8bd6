/**
 * A reply the provider stopped at its output token limit (R83-5) — Responses
 * `status: incomplete` with `incomplete_details.reason: max_output_tokens`,
 * Chat `finish_reason: length`, Anthropic `stop_reason: max_tokens`, Ollama
 * `done_reason: length`, Converse `stopReason: max_tokens` — is warned about
 * through the ask's warn channel (and `llm ask` prints it on stderr). The
 * meta record stays as the spec has it (§4.1 has no stop-reason field), and
 * a reply that ended normally gives no warning.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import { ask } from "../../src/llm/ask.ts";
import type { Piece } from "../support/protocol_parts.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { TEST_AWS } from "../support/bedrock_protocol.ts";
import { opts, question } from "./ask_support.ts";

const chatUsage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };

function chatJson(finish_reason: string) {
  return {
    id: "c1",
    choices: [{
      index: 0,
      message: { role: "assistant", content: "The answer is" },
      finish_reason,
    }],
    usage: chatUsage,
  };
}

function chatPieces(finish_reason: string): Piece[] {
  const base = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };
  const chunk = (delta: unknown, finish: string | null = null): Piece => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] },
  });
  return [
    chunk({ role: "assistant", content: "" }),
    chunk({ content: "The answer is" }),
    chunk({}, finish_reason),
    { data: { ...base, choices: [], usage: chatUsage } },
    { data: "[DONE]" },
  ];
}

const incomplete = {
  id: "resp_1",
  object: "response",
  status: "incomplete",
  incomplete_details: { reason: "max_output_tokens" },
  output: [{ type: "reasoning", id: "rs_1", summary: [] }],
  usage: { input_tokens: 9, output_tokens: 64, total_tokens: 73 },
};

const anthropicCut = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  content: [{ type: "text", text: "The answer is" }],
  stop_reason: "max_tokens",
  usage: { input_tokens: 3, output_tokens: 4 },
};

const ollamaCut = {
  model: "m",
  message: { role: "assistant", content: "The answer is" },
  done: true,
  done_reason: "length",
  prompt_eval_count: 3,
  eval_count: 4,
};

/** Asks once with `step` scripted; the answer, its meta and the warnings. */
async function askCut(backend: string, step: Record<string, unknown>, stream = false) {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(step);
  const warnings: string[] = [];
  const r = await ask(
    question,
    opts(srv, backend, home.path, { stream, warn: (m) => warnings.push(m) }),
  );
  return { text: r.text, meta: parseMeta(String(r.messages[0]!.content)), warnings };
}

const cases: Array<[string, string, Record<string, unknown>, boolean, RegExp]> = [
  [
    "responses",
    "status incomplete (max_output_tokens)",
    { raw: incomplete },
    false,
    /Provider "responses" cut the reply at the token limit \(status=incomplete, incomplete_details\.reason=max_output_tokens\): the answer is incomplete; raise max_output_tokens/,
  ],
  [
    "responses",
    "response.incomplete event",
    {
      id: "resp_1",
      pieces: [{
        event: "response.incomplete",
        data: { type: "response.incomplete", sequence_number: 0, response: incomplete },
      }],
    },
    true,
    /incomplete_details\.reason=max_output_tokens/,
  ],
  [
    "openai",
    "finish_reason length",
    { raw: chatJson("length") },
    false,
    /Provider "openai" cut the reply at the token limit \(finish_reason=length\): the answer is incomplete; raise max_tokens/,
  ],
  [
    "openai",
    "streamed finish_reason length",
    { pieces: chatPieces("length") },
    true,
    /finish_reason=length/,
  ],
  [
    "anthropic",
    "stop_reason max_tokens",
    { raw: anthropicCut },
    false,
    /Provider "anthropic" cut the reply at the token limit \(stop_reason=max_tokens\).*raise max_tokens/,
  ],
  [
    "ollama",
    "done_reason length",
    { raw: ollamaCut },
    false,
    /Provider "ollama" cut the reply at the token limit \(done_reason=length\).*raise num_predict/,
  ],
  [
    "ollama",
    "streamed done_reason length",
    { pieces: [{ raw: JSON.stringify(ollamaCut) + "\n" }] },
    true,
    /done_reason=length/,
  ],
];

for (const [backend, what, step, stream, warning] of cases) {
  Deno.test(`${backend}: a reply cut at the token limit (${what}) is warned about`, async () => {
    const got = await askCut(backend, step, stream);
    assert.equal(got.warnings.length, 1, got.warnings.join("\n"));
    assert.match(got.warnings[0]!, warning);
    // the meta record keeps the spec's fields: no stop reason is invented
    assert.equal(got.meta.incomplete, undefined);
    assert.equal(got.meta.reason, undefined);
    assert.equal(typeof got.meta.pt, "number");
  });
}

Deno.test("anthropic: a streamed reply cut at max_tokens is warned about", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const ev = (type: string, data: Record<string, unknown>): Piece => ({
    event: type,
    data: { type, ...data },
  });
  srv.script({
    pieces: [
      ev("message_start", { message: { ...anthropicCut, content: [], stop_reason: null } }),
      ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "The answer is" } }),
      ev("content_block_stop", { index: 0 }),
      ev("message_delta", { delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 4 } }),
      ev("message_stop", {}),
    ],
  });
  const warnings: string[] = [];
  const r = await ask(
    question,
    opts(srv, "anthropic", home.path, { stream: true, warn: (m) => warnings.push(m) }),
  );
  assert.equal(r.text, "The answer is");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /stop_reason=max_tokens/);
});

for (const stream of [false, true]) {
  Deno.test(`bedrock converse: stopReason max_tokens is warned about (stream: ${stream})`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "The answer is", stopReason: "max_tokens" });
    const warnings: string[] = [];
    const r = await ask(question, {
      ...opts(srv, "bedrock", home.path, { stream, warn: (m) => warnings.push(m) }),
      model: "amazon.nova-pro-v1:0",
      env: {
        SCOUT_HOME: home.path,
        AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
        AWS_REGION: TEST_AWS.region,
      },
    });
    assert.equal(r.text, "The answer is");
    assert.deepEqual(warnings, [
      'Provider "bedrock" cut the reply at the token limit (stopReason=max_tokens): the answer is incomplete; raise max_tokens',
    ]);
  });
}

Deno.test("a reply that ended normally gives no truncation warning", async () => {
  for (
    const [backend, step] of [["openai", { raw: chatJson("stop") }], ["ollama", {
      text: "ok",
    }]] as const
  ) {
    const got = await askCut(backend, step);
    assert.deepEqual(got.warnings, []);
  }
});

Deno.test("llm ask: a reply cut at the token limit warns on stderr, the answer is still printed", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ raw: chatJson("length") });
  const env = { SCOUT_HOME: join(d.path, "home"), HOME: d.path, OPENAI_KEY: "k" };
  const r = await runMain(
    ["llm", "ask", "-b", "openai", "--no-stream", "-O", `url=${srv.url}`, "hi"],
    { cwd: d.path, env },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "The answer is\n");
  assert.match(
    r.stderr,
    /^scout-ai: warning: Provider "openai" cut the reply at the token limit \(finish_reason=length\): the answer is incomplete; raise max_tokens\n$/,
  );
});
