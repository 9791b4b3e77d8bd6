/**
 * The `huggingface` backend against the loopback server speaking Chat
 * Completions (what TGI's Messages API and Hugging Face's router serve):
 * path, bearer token from HF_TOKEN / HUGGINGFACE_KEY, usage → meta,
 * streaming, tool calls; the router needs a token.
 */
import assert from "node:assert/strict";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { backendNames, getBackend } from "../../src/llm/registry.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";

const question: Message[] = [{ role: "user", content: "Hello?" }];

function opts(srv: ProviderServer, home: string, extra: AskOptions = {}): AskOptions {
  return {
    backend: "huggingface",
    url: srv.url,
    persist: false,
    env: { SCOUT_HOME: home, HF_TOKEN: "hf_loopbacktoken" },
    config: { entries: [] },
    session: newSession(),
    ...extra,
  };
}

Deno.test("huggingface is a registered backend (it was 'not available' before)", async () => {
  assert.ok(backendNames().includes("huggingface"));
  assert.equal(typeof (await getBackend("huggingface")).query, "function");
});

Deno.test("huggingface (TGI url): POST {url}/v1/chat/completions with HF_TOKEN; usage becomes meta", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "Hi there.", usage: { pt: 5, ct: 3 } });
  const r = await ask(question, opts(srv, home.path));
  assert.equal(r.text, "Hi there.");
  const req = srv.requests[0]!;
  assert.equal(req.path, "/v1/chat/completions");
  assert.equal(req.headers.authorization, "Bearer hf_loopbacktoken");
  assert.equal(req.body.model, "tgi"); // TGI serves one model and ignores the name
  const meta = parseMeta(String(r.messages[0]!.content));
  assert.deepEqual([meta.pt, meta.ct, meta.tt], [5, 3, 8]);
});

Deno.test("huggingface: HUGGINGFACE_KEY when HF_TOKEN is unset; model from HUGGINGFACE_MODEL; a /v1 url kept", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "ok" });
  await ask(question, {
    ...opts(srv, home.path),
    url: `${srv.url}/v1`,
    env: { SCOUT_HOME: home.path, HUGGINGFACE_KEY: "hf_other", HUGGINGFACE_MODEL: "meta-llama/x" },
  });
  const req = srv.requests[0]!;
  assert.equal(req.path, "/v1/chat/completions");
  assert.equal(req.headers.authorization, "Bearer hf_other");
  assert.equal(req.body.model, "meta-llama/x");
});

Deno.test("huggingface: streaming and a tool round", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    { toolCalls: [{ name: "shout", arguments: { text: "hey" } }] },
    { text: ["HE", "Y!"] },
  );
  const registry = toolRegistry({
    shout: [(_n, a) => String(a.text).toUpperCase(), {
      name: "shout",
      description: "upper-case",
      parameters: { type: "object", properties: { text: { type: "string" } } },
    }],
  });
  const deltas: string[] = [];
  const r = await ask(question, {
    ...opts(srv, home.path),
    tools: registry,
    stream: true,
    onEvent: (e) => e.type === "text" && deltas.push(e.delta),
  });
  assert.equal(r.text, "HEY!");
  assert.deepEqual(deltas, ["HE", "Y!"]);
  assert.equal(srv.requests.length, 2);
  assert.ok(srv.requests.every((q) => q.path === "/v1/chat/completions" && q.stream));
  const out = r.messages.find((m) => m.role === "function_call_output")!;
  assert.match(String(out.content), /HEY/);
});

Deno.test("huggingface without a url is the router, which needs a token: a clear error, no request", async () => {
  await using home = await tempDir();
  await assert.rejects(
    ask(question, {
      backend: "huggingface",
      persist: false,
      env: { SCOUT_HOME: home.path },
      config: { entries: [] },
      session: newSession(),
    }),
    (e: Error) =>
      /No API key for backend "huggingface": set HF_TOKEN or HUGGINGFACE_KEY/.test(e.message),
  );
});
