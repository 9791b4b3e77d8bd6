/**
 * What a streamed request can get back besides a stream against the loopback
 * server: errors the provider reports inside the stream (typed and retried
 * like their HTTP form, R83-6).
 */
import assert from "node:assert/strict";
import { isScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import type { StreamError } from "../support/protocol_parts.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { question, streamOpts } from "./ask_support.ts";

/**
 * Per backend, a retryable in-stream error (the streaming form of a 5xx, 429
 * or 529) and the status it stands for. Responses' `response.failed` carries
 * the failed response, processed as a reply: its message does not say
 * "in its stream".
 */
const RETRYABLE: Array<[string, StreamError, number]> = [
  ["anthropic", { type: "overloaded_error", message: "Overloaded" }, 529],
  ["responses", { type: "server_error", message: "The model failed to generate a response." }, 500],
  ["responses", { type: "rate_limit_exceeded", message: "Slow down", event: "error" }, 429],
  ["vllm", { type: "server_error", message: "The model failed to generate a response." }, 500],
  ["openai", { type: "server_error", message: "The server had an error" }, 500],
];

for (const [backend, error, status] of RETRYABLE) {
  Deno.test(`${backend}: ${error.type} inside the stream is retried like its HTTP status, within max_retries`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "partial", exception: error }, { text: "whole answer" });
    const retried: unknown[] = [];
    const r = await ask(
      question,
      streamOpts(srv, backend, home.path, {
        onEvent: (e) => e.type === "retry" && retried.push(e.error),
      }),
    );
    assert.equal(r.text, "whole answer");
    assert.equal(srv.requests.length, 2);
    const e = retried[0];
    assert.ok(isScoutError(e, "provider_http"), String(e));
    assert.equal(e.status, status);
    const where = backend === "anthropic" || backend === "openai" || error.event === "error"
      ? " in its stream"
      : "";
    assert.match(
      e.message,
      new RegExp(`^Provider "${backend}" reported ${error.type}${where}: ${error.message}`),
    );
    // the same limit as for the status: max_retries 1 → two attempts, then the error
    srv.script(...Array.from({ length: 3 }, () => ({ text: "x", exception: error })));
    await assert.rejects(
      () => ask(question, streamOpts(srv, backend, home.path, { max_retries: "1" })),
      (e) => isScoutError(e, "provider_http") && e.attempts === 2,
    );
    assert.equal(srv.requests.length, 4);
  });
}

for (const backend of ["anthropic", "responses", "openai"]) {
  Deno.test(`${backend}: a request error inside the stream fails at once, naming its type`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const type = "invalid_request_error";
    srv.script({ text: "x", exception: { type, message: "messages: bad" } }, { text: "never" });
    await assert.rejects(
      () => ask(question, streamOpts(srv, backend, home.path)),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.equal(e.retryable, false);
        assert.equal(e.attempts, 1);
        assert.match(e.message, new RegExp(`reported ${type}( in its stream)?: messages: bad`));
        return true;
      },
    );
    assert.equal(srv.requests.length, 1);
  });
}

for (const backend of ["anthropic", "responses", "openai"]) {
  Deno.test(`${backend}: a key an in-stream error echoes is masked even where its excerpt cuts the key`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const key = "CanaryStreamKeyLetters";
    // the excerpt keeps 300 characters: the cut falls 10 characters into the key
    const message = `${"x".repeat(290)}${key}`;
    srv.script({ text: "x", exception: { type: "invalid_request_error", message } });
    await assert.rejects(
      () => ask(question, streamOpts(srv, backend, home.path, { key })),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.ok(!e.message.includes(key.slice(0, 4)), e.message);
        assert.match(e.message, /x{290}\*\*\*… /);
        return true;
      },
    );
  });
}
