/**
 * The output-token limit reaches each protocol under its own name (R113-2,
 * [TS-FIX]; Ruby sends `max_tokens` everywhere): Responses (`responses`,
 * `vllm`) as `max_output_tokens`, OpenAI's own Chat Completions as
 * `max_completion_tokens`, a compatible Chat Completions server as
 * `max_tokens` (parity), Ollama as `options.num_predict`, Anthropic as
 * `max_tokens` (native, parity); a limit given under the protocol's own name
 * wins. Anthropic's default `max_tokens` clears a thinking budget (R113-3).
 * Asked through each backend's real client against the loopback provider,
 * which records the bodies (and refuses a budget at or above `max_tokens`,
 * as Anthropic does).
 */
import assert from "node:assert/strict";
import { isScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import { TEST_AWS } from "../support/bedrock_protocol.ts";
import { tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { KEY, opts, question } from "./ask_support.ts";

/** The body of the one request an ask with `extra` sent through `backend`. */
async function sentBody(
  backend: string,
  extra: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "ok" });
  const r = await ask(question, opts(srv, backend, home.path, extra));
  assert.equal(r.text, "ok");
  assert.equal(srv.requests.length, 1);
  return srv.requests[0]!.body;
}

const LIMIT = { temperature: 0.2, max_tokens: 50 };

Deno.test("max_tokens: Responses gets max_output_tokens, its only name (responses, vllm) [TS-FIX]", async () => {
  for (const backend of ["responses", "vllm"]) {
    const body = await sentBody(backend, LIMIT);
    assert.equal(body.max_output_tokens, 50, backend);
    assert.equal("max_tokens" in body, false, backend);
    assert.equal(body.temperature, 0.2, backend);
    // a max_output_tokens given wins
    const given = await sentBody(backend, { ...LIMIT, max_output_tokens: 70 });
    assert.equal(given.max_output_tokens, 70, backend);
    assert.equal("max_tokens" in given, false, backend);
  }
});

Deno.test("max_tokens: Ollama gets options.num_predict (an unknown max_tokens it ignores) [TS-FIX]", async () => {
  assert.deepEqual((await sentBody("ollama", LIMIT)).options, {
    temperature: 0.2,
    num_predict: 50,
  });
  const given = await sentBody("ollama", { ...LIMIT, num_predict: 70 });
  assert.deepEqual(given.options, { temperature: 0.2, num_predict: 70 });
});

Deno.test("max_tokens: a compatible Chat Completions server and Anthropic get max_tokens as written (parity)", async () => {
  const chat = await sentBody("openai", LIMIT);
  assert.equal(chat.max_tokens, 50);
  assert.equal("max_completion_tokens" in chat, false);
  // a max_completion_tokens written for such a server goes as written too
  const both = await sentBody("openai", { max_completion_tokens: 70 });
  assert.equal(both.max_completion_tokens, 70);
  assert.equal("max_tokens" in both, false);
  const anthropic = await sentBody("anthropic", LIMIT);
  assert.equal(anthropic.max_tokens, 50);
});

/** A fetch that sends OpenAI's own API's requests to the loopback server instead. */
function toLoopback(srv: ProviderServer): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    assert.ok(url.startsWith("https://api.openai.com/v1/"), url);
    return fetch(url.replace("https://api.openai.com", srv.url), init);
  };
}

Deno.test("max_tokens: OpenAI's own Chat Completions (the default url) gets max_completion_tokens [TS-FIX]", async () => {
  for (const [extra, expected] of [[LIMIT, 50], [{ ...LIMIT, max_completion_tokens: 70 }, 70]]) {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "ok" });
    const { url: _none, ...o } = opts(srv, "openai", home.path, {
      ...extra as Record<string, unknown>,
      fetch: toLoopback(srv),
    });
    assert.equal((await ask(question, o)).text, "ok");
    const req = srv.requests[0]!;
    assert.equal(req.path, "/v1/chat/completions");
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.equal(req.body.max_completion_tokens, expected);
    assert.equal("max_tokens" in req.body, false);
    assert.equal(req.body.temperature, 0.2);
  }
});

const THINKING = { type: "enabled", budget_tokens: 2048 };

const bedrockInvoke = (srv: ProviderServer, home: string) => ({
  ...opts(srv, "bedrock", home),
  model: "anthropic.claude-sonnet-4-5-20250929-v1:0",
  env: {
    SCOUT_HOME: home,
    AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
    AWS_REGION: TEST_AWS.region,
  },
});

Deno.test("anthropic thinking without max_tokens: the default goes above the budget (budget + 1000); without thinking 1000 [TS-FIX]", async () => {
  for (const route of ["anthropic", "bedrock invoke"]) {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "ok" }, { text: "ok" });
    const base = route === "anthropic"
      ? opts(srv, "anthropic", home.path)
      : bedrockInvoke(srv, home.path);
    assert.equal((await ask(question, { ...base, thinking: THINKING })).text, "ok", route);
    assert.equal(srv.requests[0]!.body.max_tokens, 3048, route);
    assert.deepEqual(srv.requests[0]!.body.thinking, THINKING, route);
    await ask(question, base);
    assert.equal(srv.requests[1]!.body.max_tokens, 1000, route);
  }
});

Deno.test("anthropic thinking with a max_tokens at or below the budget: sent as given, the provider's 400 says why", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  await assert.rejects(
    () =>
      ask(question, {
        ...opts(srv, "anthropic", home.path),
        thinking: THINKING,
        max_tokens: 2048,
        max_retries: 0,
      }),
    (e) => {
      assert.ok(isScoutError(e), String(e));
      assert.match(e.message, /`max_tokens` must be greater than `thinking\.budget_tokens`/);
      return true;
    },
  );
  assert.equal(srv.requests[0]!.body.max_tokens, 2048);
});
