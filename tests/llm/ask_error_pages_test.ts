/**
 * Replies that are not in the protocol's shape, against the loopback server:
 * a proxy's login page answering a streamed request with 200 (R83-9), a
 * proxy's HTML error page, a plain-text error, an error status whose body
 * never arrives (R83-13).
 */
import assert from "node:assert/strict";
import { isScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { BACKENDS, opts, question, streamOpts } from "./ask_support.ts";

const LOGIN = "<html><body><h1>Corporate Login</h1>\n<form>please   sign in</form></body></html>";
const BAD_GATEWAY = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title>" +
  "<style>body{font:x}</style></head><body><h1>Bad Gateway</h1><p>The proxy server received " +
  "an invalid response from an upstream server.</p></body></html>";

for (const backend of BACKENDS) {
  Deno.test(`${backend}: a 200 HTML page answering a streamed request fails at once, saying what came back`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ page: { contentType: "text/html; charset=utf-8", body: LOGIN } });
    await assert.rejects(
      () => ask(question, streamOpts(srv, backend, home.path)),
      (e) => {
        assert.ok(isScoutError(e, "provider_response"), String(e));
        assert.equal(e.attempts, 1);
        const stream = backend === "ollama" ? "a stream of JSON lines" : "an event stream";
        assert.equal(
          e.message.split(" (url ")[0],
          `Provider "${backend}" answered a streamed request with HTTP 200 text/html, not ${stream}: Corporate Login please sign in`,
        );
        return true;
      },
    );
    assert.equal(srv.requests.length, 1);
  });

  Deno.test(`${backend}: an HTML error page is shown as its text; a text body without the status twice`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    const noRetry = { max_retries: "0" };
    srv.script({ page: { status: 502, contentType: "text/html", body: BAD_GATEWAY } });
    await assert.rejects(() => ask(question, opts(srv, backend, home.path, noRetry)), (e) => {
      assert.ok(isScoutError(e, "provider_http"), String(e));
      assert.equal(e.status, 502);
      assert.match(
        e.message,
        new RegExp(
          `^Provider "${backend}" answered HTTP 502: Bad Gateway The proxy server received an invalid response from an upstream server\\.`,
        ),
      );
      assert.doesNotMatch(e.message, /[<>{}]/);
      return true;
    });
    srv.script({ page: { status: 503, contentType: "text/plain", body: "Service Unavailable\n" } });
    await assert.rejects(() => ask(question, opts(srv, backend, home.path, noRetry)), (e) => {
      assert.ok(isScoutError(e, "provider_http"), String(e));
      assert.match(
        e.message,
        new RegExp(`^Provider "${backend}" answered HTTP 503: Service Unavailable( \\(|$)`),
      );
      return true;
    });
  });

  Deno.test(`${backend}: an error status whose body never arrives names the status, not "did not answer"`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ page: { status: 502, contentType: "text/html", body: BAD_GATEWAY, stall: true } });
    await assert.rejects(
      () =>
        ask(question, opts(srv, backend, home.path, { request_timeout: "0.2", max_retries: "0" })),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.equal(e.status, 502);
        assert.equal(e.retryable, true);
        assert.match(
          e.message,
          new RegExp(
            `^Provider "${backend}" answered HTTP 502, then its body did not arrive within 0\\.2 s`,
          ),
        );
        return true;
      },
    );
  });
}

Deno.test("openai: a stream sent as text/plain is still read as a stream", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${
      JSON.stringify({ id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] })
    }\n\n`;
  const body = chunk({ content: "mislabelled" }, null) + chunk({}, "stop") + "data: [DONE]\n\n";
  srv.script({ page: { contentType: "text/plain", body } });
  const r = await ask(question, opts(srv, "openai", home.path, { stream: true }));
  assert.equal(r.text, "mislabelled");
});

Deno.test("anthropic: a streamed request answered with one JSON message is read as that message", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const message = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    content: [{ type: "text", text: "plain" }],
    usage: { input_tokens: 4, output_tokens: 1 },
  };
  srv.script({ page: { contentType: "application/json", body: JSON.stringify(message) } });
  const r = await ask(question, opts(srv, "anthropic", home.path, { stream: true }));
  assert.equal(r.text, "plain");
});
