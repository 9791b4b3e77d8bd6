/**
 * R95-1: a provider that answers with a redirect to another origin never gets
 * the key sent there (fetch drops `Authorization` on such a redirect, not
 * `x-api-key`); a redirect within the same origin is still followed, method
 * and body kept for 307/308. Two loopback servers: A redirects, B records.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";

const KEY = "sk-ant-SECRET-r95";

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const REPLIES: Record<string, unknown> = {
  "/v1/messages": {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [{ type: "text", text: "pong" }],
    stop_reason: "end_turn",
    usage: { input_tokens: 1, output_tokens: 1 },
  },
  "/v1/chat/completions": {
    id: "c1",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "pong" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
};

/** A loopback server recording requests; `/r/…` redirects (307) to `target(path)`. */
function server(target: (path: string, port: number) => string) {
  const seen: Seen[] = [];
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    seen.push({
      method: req.method,
      path,
      headers: Object.fromEntries(req.headers),
      body: await req.text(),
    });
    if (path.startsWith("/r/")) {
      const location = target(path.slice(2), srv.addr.port);
      return new Response(null, { status: 307, headers: { location } });
    }
    const reply = REPLIES[path];
    return reply ? Response.json(reply) : new Response("no", { status: 404 });
  });
  return {
    seen,
    port: srv.addr.port,
    [Symbol.asyncDispose]: () => srv.shutdown(),
  };
}

const BACKENDS: { backend: string; model: string; env: Record<string, string> }[] = [
  { backend: "anthropic", model: "claude-x", env: { ANTHROPIC_API_KEY: KEY } },
  { backend: "openai", model: "gpt-x", env: { OPENAI_API_KEY: KEY, OPENAI_KEY: KEY } },
];

function ask(
  backend: string,
  model: string,
  url: string,
  env: Record<string, string>,
  home: string,
) {
  return runMain(
    [
      "llm",
      "ask",
      "--no-cache",
      "-b",
      backend,
      "-O",
      `url=${url}`,
      "-O",
      "max_retries=0",
      "-m",
      model,
      "--no-stream",
      "hi",
    ],
    { env: { SCOUT_HOME: join(home, "home"), HOME: home, ...env }, cwd: home },
  );
}

for (const { backend, model, env } of BACKENDS) {
  Deno.test(`R95-1: ${backend}: a 307 to another origin is refused, naming it, and the key never reaches it`, async () => {
    await using t = await tempDir();
    await using b = server(() => "unused");
    await using a = server((path) => `http://localhost:${b.port}${path}`);
    const r = await ask(backend, model, `http://127.0.0.1:${a.port}/r/v1`, env, t.path);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(b.seen.length, 0, `B got ${JSON.stringify(b.seen)}`);
    assert.equal(a.seen.length, 1, "refused, not retried");
    assert.match(r.stderr, new RegExp(`redirect .*to http://localhost:${b.port}`));
    assert.ok(!r.stderr.includes(KEY));
  });

  Deno.test(`R95-1: ${backend}: a 307 within the same origin is followed with method, body and key`, async () => {
    await using t = await tempDir();
    await using a = server((path, port) => `http://127.0.0.1:${port}${path}`);
    const r = await ask(backend, model, `http://127.0.0.1:${a.port}/r/v1`, env, t.path);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pong/);
    assert.equal(a.seen.length, 2);
    const [first, second] = a.seen;
    assert.equal(second!.method, "POST");
    assert.equal(second!.path, first!.path.slice(2));
    assert.equal(second!.body, first!.body);
    assert.ok(second!.body.includes('"hi"'));
    const key = backend === "anthropic"
      ? second!.headers["x-api-key"]
      : second!.headers.authorization;
    assert.ok(key?.includes(KEY), "the key went to the same origin");
  });
}

Deno.test("R95-1: bedrock: a 307 to another origin is refused; the session token (a custom header, kept by fetch) never reaches it", async () => {
  await using t = await tempDir();
  await using b = server(() => "unused");
  await using a = server((path) => `http://localhost:${b.port}${path}`);
  const session = "SESSTOK-r95";
  const r = await runMain(
    [
      "llm",
      "ask",
      "--no-cache",
      "-b",
      "bedrock",
      "-m",
      "amazon.nova-lite-v1:0",
      "--no-stream",
      ...["-O", `url=http://127.0.0.1:${a.port}/r`, "-O", "region=us-east-1"],
      ...["-O", "access_key=AKIDEXAMPLE", "-O", "secret_key=wJalrXUtnFEMI/K7MDENGEXAMPLEKEY"],
      ...["-O", `session_token=${session}`, "-O", "max_retries=0"],
      "hi",
    ],
    { env: { SCOUT_HOME: join(t.path, "home"), HOME: t.path }, cwd: t.path },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(b.seen.length, 0, `B got ${JSON.stringify(b.seen)}`);
  assert.equal(
    a.seen[0]!.headers["x-amz-security-token"],
    session,
    "A, the configured origin, got it",
  );
  assert.match(r.stderr, new RegExp(`Refused a redirect .*to http://localhost:${b.port}`));
});
