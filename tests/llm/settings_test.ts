import assert from "node:assert/strict";
import { type ConfigStore, parseConfigText } from "../../src/config/store.ts";
import { isScoutError } from "../../src/errors.ts";
import { getBackend } from "../../src/llm/registry.ts";
import { backendChoice, resolveSettings } from "../../src/llm/settings.ts";
import { urlScopes, withUrlScopes } from "../../src/config/url_scopes.ts";

const empty: ConfigStore = { entries: [] };

async function settings(
  backend: string,
  options: Record<string, unknown>,
  env: Record<string, string> = {},
  store = empty,
) {
  const b = await getBackend(backend);
  return resolveSettings({ backend, defaults: b.defaults, options, store, env });
}

Deno.test("backend: option → config (ask, llm) → ASK_BACKEND, LLM_BACKEND → responses", () => {
  assert.equal(backendChoice("anthropic", empty, { ASK_BACKEND: "x" }).name, "anthropic");
  assert.equal(
    backendChoice(undefined, { entries: parseConfigText("backend ollama llm") }, {}).name,
    "ollama",
  );
  assert.equal(backendChoice(undefined, empty, { LLM_BACKEND: "vllm" }).name, "vllm");
  assert.equal(backendChoice(undefined, empty, {}).name, "responses");
});

Deno.test("keys: <TAG>_KEY, then OPENAI_API_KEY / ANTHROPIC_API_KEY ([TS-FIX])", async () => {
  assert.equal((await settings("openai", {}, { OPENAI_API_KEY: "a" })).key, "a");
  assert.equal((await settings("openai", {}, { OPENAI_KEY: "b", OPENAI_API_KEY: "a" })).key, "b");
  assert.equal((await settings("responses", {}, { OPENAI_API_KEY: "a" })).key, "a");
  assert.equal((await settings("anthropic", {}, { ANTHROPIC_API_KEY: "c" })).key, "c");
  // endpoint/options key beats config beats env
  const store = { entries: parseConfigText("key fromcfg anthropic") };
  assert.equal((await settings("anthropic", {}, { ANTHROPIC_API_KEY: "c" }, store)).key, "fromcfg");
  assert.equal(
    (await settings("anthropic", { key: "opt" }, { ANTHROPIC_API_KEY: "c" }, store)).key,
    "opt",
  );
});

Deno.test("missing key: error names the variables; local urls and keyless backends get EMPTY", async () => {
  await assert.rejects(() => settings("openai", {}), (e) => {
    assert.ok(isScoutError(e, "missing_key"));
    assert.match(e.message, /OPENAI_KEY or OPENAI_API_KEY/);
    return true;
  });
  await assert.rejects(
    () => settings("anthropic", { url: "https://api.anthropic.com" }),
    /ANTHROPIC_KEY or ANTHROPIC_API_KEY/,
  );
  assert.equal((await settings("openai", { url: "http://127.0.0.1:9" })).key, "EMPTY");
  assert.equal((await settings("ollama", {})).key, "EMPTY");
  assert.equal((await settings("vllm", { url: "http://x" })).key, "EMPTY");
});

Deno.test("model: option → config under the backend's own scopes ([TS-FIX]) → env → default", async () => {
  const env = { OPENAI_API_KEY: "k" };
  assert.equal(
    (await settings("anthropic", {}, { ANTHROPIC_KEY: "k" })).model,
    "claude-sonnet-4-5",
  );
  assert.equal((await settings("openai", {}, { ...env, MODEL: "m1" })).model, "m1");
  assert.equal(
    (await settings("openai", {}, { ...env, OPENAI_MODEL: "m2", MODEL: "m1" })).model,
    "m2",
  );
  const store = {
    entries: parseConfigText("model from-openai-scope openai\nmodel from-ollama ollama"),
  };
  assert.equal((await settings("ollama", {}, {}, store)).model, "from-ollama");
  assert.equal((await settings("openai", { model: "opt" }, env, store)).model, "opt");
  assert.equal((await settings("vllm", {})).model, "vllm");
  assert.equal((await settings("ollama", { url: "http://u" })).url, "http://u");
  assert.equal((await settings("ollama", {}, { OLLAMA_URL: "http://o" })).url, "http://o");
});

Deno.test("timeouts and retries: defaults 1200 s and 3; invalid values are config errors", async () => {
  const s = await settings("ollama", {});
  assert.equal(s.timeoutMs, 1_200_000);
  assert.equal(s.maxRetries, 3);
  assert.equal(
    (await settings("ollama", { request_timeout: "0.25", max_retries: "0" })).timeoutMs,
    250,
  );
  await assert.rejects(
    () => settings("ollama", { request_timeout: "soon" }),
    /Invalid request_timeout/,
  );
  await assert.rejects(() => settings("ollama", { max_retries: "-1" }), /Invalid max_retries/);
});

Deno.test("unknown backend → unknown_backend listing the known ones; every Ruby backend is ported", async () => {
  await assert.rejects(() => getBackend("nonesuch"), (e) => {
    assert.ok(isScoutError(e, "unknown_backend"));
    assert.match(
      e.message,
      /^Unknown backend: "nonesuch" \(known: responses, openai, anthropic, ollama, vllm, openwebui, bedrock, relay, huggingface\)$/,
    );
    return true;
  });
  for (const name of ["bedrock", "huggingface", "relay"]) {
    assert.equal(typeof (await getBackend(name)).query, "function");
    assert.equal(await getBackend(name), await getBackend(name), "loaded once, then the same");
  }
  // names of an object's own machinery are no backends
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    await assert.rejects(() => getBackend(name), (e) => isScoutError(e, "unknown_backend"));
  }
});

Deno.test("key and model: the configured url's host scopes first (Ruby get_url_config)", async () => {
  const store = {
    entries: parseConfigText(
      [
        "key generic ask",
        "key perhost ask.gpu1",
        "key tagged vllm_ask.gpu1",
        "key other ask.gpu2",
        "model hostmodel vllm.gpu1.cluster",
        "url http://gpu2.cluster.org:8000 vllm_ask",
      ].join("\n"),
    ),
  };
  const at = (url?: string) => settings("vllm", url === undefined ? {} : { url }, {}, store);
  // `vllm_ask.<host>` before `ask.<host>` before the plain scopes
  assert.equal((await at("http://gpu1.cluster.org:8000")).key, "tagged");
  assert.equal((await at("http://gpu1.cluster.org:8000")).model, "hostmodel");
  // another host: its own entry; an unknown host: the plain scope
  assert.equal((await at("http://gpu3.cluster.org:8000")).key, "generic");
  assert.equal((await at("http://gpu3.cluster.org:8000")).model, "vllm");
  // a url from config is a url too (gpu2's `ask.gpu2`)
  assert.equal((await at()).key, "other");
  // host entries only apply with a url: no url anywhere → the plain scope
  const noUrl = { entries: store.entries.filter((e) => e.key !== "url") };
  assert.equal((await settings("vllm", {}, {}, noUrl)).key, "generic");
  // an explicit key still wins; a host entry beats the environment like any entry
  assert.equal((await settings("vllm", { url: "http://gpu1", key: "opt" }, {}, store)).key, "opt");
  const env = { VLLM_KEY: "fromenv" };
  assert.equal((await settings("vllm", { url: "http://gpu1" }, env, noUrl)).key, "tagged");
  assert.equal(
    (await settings("vllm", { url: "http://gpu9" }, env, { entries: [] })).key,
    "fromenv",
  );
});

Deno.test("url scopes: Ruby's get_url_server_tokens, order and quirks included", () => {
  // the Ruby's own test cases
  assert.deepEqual(urlScopes("http://some.random.server.com/api", "p"), [
    "p.some",
    "p.random",
    "p.server",
    "p.some.random",
    "p.random.server",
    "p.some.random.server",
    "p.some.random.server.com",
  ]);
  assert.deepEqual(urlScopes("http://some.server.com/api", "ollama"), [
    "ollama.some",
    "ollama.server",
    "ollama.some.server",
    "ollama.some.server.com",
  ]);
  // a port ends the host; a trailing dot is dropped as Ruby's split drops it
  assert.deepEqual(urlScopes("https://gpu1:8000/v1", "ask"), ["ask.gpu1"]);
  assert.deepEqual(urlScopes("http://example.com./x", "p"), ["p.example", "p.example.com."]);
  // quirks kept: the scheme is matched case-sensitively, userinfo is not skipped
  assert.deepEqual(urlScopes("HTTP://gpu1/x", "p"), ["p.HTTP"]);
  assert.deepEqual(urlScopes("http://u:pw@gpu1/x", "p"), ["p.u"]);
  // scope order: each scope's host tokens, then the scopes
  assert.deepEqual(withUrlScopes("http://a.b.org", ["x", "y"]), [
    "x.a",
    "x.b",
    "x.a.b",
    "x.a.b.org",
    "y.a",
    "y.b",
    "y.a.b",
    "y.a.b.org",
    "x",
    "y",
  ]);
  assert.deepEqual(withUrlScopes(undefined, ["x"]), ["x"]);
});

Deno.test("a url that is no http(s) URL is a config error naming where it was set (R142-3)", async () => {
  const bad = (e: unknown, value: string) => {
    assert.ok(isScoutError(e, "config"), String(e));
    assert.ok(e.message.startsWith(`Invalid url "${value}" (`), e.message);
    return e;
  };
  for (
    const url of ["http://127.0.0.1:99999", "http://1e308.1e308:1e308", "localhost:11434", "u"]
  ) {
    await assert.rejects(() => settings("anthropic", { url, key: "k" }), (e) => !!bad(e, url));
  }
  // an endpoint file's line (the ask's optionSource), a config entry's, a variable
  const b = await getBackend("openai");
  assert.throws(() =>
    resolveSettings({
      backend: "openai",
      defaults: b.defaults,
      options: { url: "ftp://x", key: "k" },
      optionSource: (n) => n === "url" ? { file: "/e/AI/x.yaml", line: 3 } : undefined,
      store: empty,
      env: {},
    }), (e) => {
    bad(e, "ftp://x");
    assert.equal((e as { file?: string }).file, "/e/AI/x.yaml");
    assert.equal((e as { line?: number }).line, 3);
    return true;
  });
  const store = { entries: parseConfigText("url http://x:0x openai", "/h/etc/config") };
  await assert.rejects(() => settings("openai", { key: "k" }, {}, store), (e) => {
    bad(e, "http://x:0x");
    assert.equal((e as { file?: string }).file, "/h/etc/config");
    return true;
  });
  await assert.rejects(
    () => settings("ollama", {}, { OLLAMA_URL: "localhost:11434" }),
    /Invalid url "localhost:11434" .*\(set by the environment variable OLLAMA_URL\)$/,
  );
  // control characters are shown escaped
  await assert.rejects(
    () => settings("ollama", { url: "http://a\u0000b:1:2" }),
    /"http:\/\/a\\u0000b:1:2"/,
  );
});
