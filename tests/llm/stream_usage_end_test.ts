/**
 * A streamed reply is whole only with its last event: an ask aborted after
 * the reply's text and finish but before the event that carries its usage
 * (Chat Completions' usage chunk, Anthropic's `message_delta`, Responses'
 * `response.completed`, Ollama's `done` line) fails as interrupted and keeps
 * the text marked `incomplete=true` — the `openai` SDK ends its stream
 * quietly on an abort, which once passed for a whole reply without usage
 * (R141-2). A Chat Completions body that ends after the finish chunk with
 * neither usage nor `[DONE]` is a cut; one that ends with either is whole.
 */
import assert from "node:assert/strict";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import type { Piece } from "../support/protocol_parts.ts";
import { Replies } from "../support/provider_protocols.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import type { Protocol, ScriptStep } from "../support/provider_script.ts";
import { tempDir } from "../support/cli.ts";
import { opts } from "./ask_support.ts";

/** The protocols {@link Replies} renders. */
type Spoken = Exclude<Protocol, "bedrock" | "converse">;

const question: Message[] = [{ role: "user", content: "Tell me" }];
const TEXT = ["One ", "two."];

/** Each backend's protocol, and how many of its last pieces carry the usage and what follows. */
const ROUTES: Record<string, { protocol: Spoken; held: number; api?: string }> = {
  openai: { protocol: "chat", held: 2 },
  huggingface: { protocol: "chat", held: 2 },
  openwebui: { protocol: "chat", held: 2, api: "/api" },
  responses: { protocol: "responses", held: 1 },
  vllm: { protocol: "responses", held: 1 },
  anthropic: { protocol: "anthropic", held: 2 },
  ollama: { protocol: "ollama", held: 1 },
};

/** Streamed asks at the loopback server that are not retried. */
function streamed(srv: ProviderServer, backend: string, home: string, extra: AskOptions = {}) {
  const url = srv.url + (ROUTES[backend]?.api ?? "");
  return opts(srv, backend, home, { stream: true, max_retries: "0", url, ...extra });
}

/** The pieces the server streams for `step` in `protocol`. */
function piecesOf(protocol: Spoken, step: ScriptStep): Piece[] {
  const body = { model: "test-model", stream_options: { include_usage: true } };
  return new Replies()[protocol](step, body).pieces;
}

for (const [backend, route] of Object.entries(ROUTES)) {
  Deno.test(`${backend}: an ask aborted after the reply's text, before its usage, is interrupted and marked incomplete (R141-2)`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const step: ScriptStep = { text: TEXT, usage: { pt: 40, ct: 4 } };
    const stallAfter = piecesOf(route.protocol, step).length - route.held;
    srv.script({ ...step, stallAfter });
    const ac = new AbortController();
    let seen = "";
    const err = await ask(
      question,
      streamed(srv, backend, home.path, {
        signal: ac.signal,
        onEvent: (e) => {
          if (e.type !== "text") return;
          seen += e.delta;
          // the finish (Anthropic: its blocks' ends) follows at once; then the server holds
          if (seen === "One two.") {
            setTimeout(() => ac.abort(new DOMException("Interrupted", "AbortError")), 200);
          }
        },
      }),
    ).then((r) => assert.fail(`must fail, got ${JSON.stringify(r)}`), (e) => e);
    assert.equal(err.name, "AbortError", String(err));
    const messages = err.messages as Message[];
    assert.deepEqual(messages.map((m) => m.role), ["meta", "assistant"]);
    assert.equal(messages[1]!.content, "One two.");
    const meta = parseMeta(String(messages[0]!.content));
    assert.equal(meta.incomplete, "true");
    assert.equal(meta.reason, "interrupted");
    // only Anthropic reported tokens before the held event (message_start: the
    // prompt's, and its placeholder 1 output token)
    const early = backend === "anthropic";
    assert.deepEqual([meta.pt, meta.ct], early ? [40, 1] : [undefined, undefined]);
  });
}

/** A Chat Completions chunk of one choice. */
function chunk(delta: unknown, finish: string | null = null): Piece {
  return {
    data: {
      id: "chatcmpl-x",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  };
}

const FINISHED = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "hi" }),
  chunk({}, "stop"),
];
const USAGE: Piece = {
  data: {
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    choices: [],
    usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
  },
};

Deno.test("openai: a stream whose body ends cleanly after the finish chunk, without usage or [DONE] and unaborted, is whole (a compatible server may send neither)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ pieces: FINISHED });
  const out = await ask(question, streamed(srv, "openai", home.path));
  assert.equal(out.text, "hi");
  const meta = parseMeta(String(out.messages.find((m) => m.role === "meta")!.content));
  assert.deepEqual([meta.incomplete, meta.pt], [undefined, undefined]);
});

Deno.test("openai: a stream closed by [DONE] without usage (a server that sends none), or by its usage without [DONE], is whole", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ pieces: [...FINISHED, { data: "[DONE]" }] }, { pieces: [...FINISHED, USAGE] });
  const metas: Record<string, unknown>[] = [];
  for (let i = 0; i < 2; i++) {
    const out = await ask(question, streamed(srv, "openai", home.path));
    assert.equal(out.text, "hi");
    metas.push(parseMeta(String(out.messages.find((m) => m.role === "meta")!.content)));
  }
  assert.deepEqual(metas.map((m) => [m.incomplete, m.pt]), [[undefined, undefined], [
    undefined,
    7,
  ]]);
});
