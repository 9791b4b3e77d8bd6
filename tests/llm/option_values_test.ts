/**
 * Call options that are not JSON data never reach a provider (R105-6):
 * `AskOptions` takes any key, so a misspelt `singal: ac.signal` type-checks;
 * it is dropped with a warning that names the runtime option meant, and a
 * JSON value under a near miss of a runtime option (`strem: true`) is sent
 * with a warning. Real provider parameters are sent without one.
 */
import assert from "node:assert/strict";
import { ask } from "../../src/llm/ask.ts";
import { requestOptions } from "../../src/llm/ask_options.ts";
import { notJsonReason } from "../../src/llm/option_values.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { opts, question } from "./ask_support.ts";

Deno.test("ask: an AbortSignal under a misspelt key is not sent, and the warning says which key was meant", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "ok" });
  const warnings: string[] = [];
  const ac = new AbortController();
  const r = await ask(
    question,
    opts(srv, "openai", home.path, {
      singal: ac.signal,
      strem: true,
      on_chunk: () => {},
      temperature: 0.5,
      warn: (m) => warnings.push(m),
    }),
  );
  assert.equal(r.text, "ok");
  const body = srv.requests[0]!.body;
  assert.equal("singal" in body, false, JSON.stringify(body));
  assert.equal("on_chunk" in body, false, JSON.stringify(body));
  assert.equal(body.strem, true, "a JSON value is still sent: it may be a provider's parameter");
  assert.equal(body.temperature, 0.5);
  assert.deepEqual(warnings.sort(), [
    'Option "on_chunk" is not a JSON value (function): not sent',
    'Option "singal" is not a JSON value (AbortSignal): not sent; did you mean "signal"?',
    'Option "strem" is not a runtime option: sent to the provider as a request parameter; ' +
    'did you mean "stream"?',
  ]);
});

Deno.test("requestOptions: provider parameters and JSON maps pass without a warning", () => {
  const warnings: string[] = [];
  const params = {
    model: "m",
    temperature: 0.2,
    top_p: 1,
    top_k: 40,
    n: 1,
    seed: 7,
    stop: ["\n"],
    store: false,
    user: "u",
    stream_options: { include_usage: true },
    tool_choice: "auto",
    parallel_tool_calls: true,
    response_format: { type: "json_object" },
    format: { name: "person", age: ["integer", "Age", 0] },
    reasoning_effort: "low",
    max_tokens: 10,
    metadata: { at: new Date(0) },
    service_tier: "auto",
    instructions: "be brief",
    previous_response_id: "r1",
    include: ["reasoning.encrypted_content"],
    truncation: "auto",
    think: true,
    keep_alive: "5m",
    options: { num_ctx: 4096 },
    session_id: "s1",
    version: "2024-01-01",
    api_version: "2024-01-01",
    log_errors: true,
    endpoint: "e",
    backend: "openai",
    persist: false,
    agent: false,
    prompt_strategies: [(ms: unknown[]) => ms], // the pipeline's keys take what it takes
  };
  assert.deepEqual(requestOptions(params, (m) => warnings.push(m)), params);
  assert.deepEqual(warnings, []);
});

Deno.test("notJsonReason: what in a value is not JSON, and where", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  assert.deepEqual(
    [
      notJsonReason({ a: [1, "x", null, true, { b: undefined }] }),
      notJsonReason(new Map()),
      notJsonReason({ a: [1, () => 2] }),
      notJsonReason(10n),
      notJsonReason(Number.NaN),
      notJsonReason(cyclic),
      notJsonReason(Object.create(null)),
    ],
    [null, "Map", "function at .a[1]", "bigint", "NaN", "a cycle at .self", null],
  );
});
