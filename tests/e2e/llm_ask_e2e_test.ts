/**
 * `scout-ai llm ask` as a real process — from source (`deno task scout`) and
 * as the built binary — against the loopback provider server: same bytes on
 * stdout from both, streaming, -o, one-line errors with exit codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { BINARY, buildBinary, runBinary, runScout, tempDir } from "../support/cli.ts";
import { TEST_AWS } from "../support/bedrock_protocol.ts";
import { startProviderServer } from "../support/provider_server.ts";

const KEY = "sk-e2e-SECRET-5150";

Deno.test("llm ask: binary and source print the same answer for every backend, streamed or not", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    fallback: () => ({ text: ["The answer ", "is ", "42."], usage: { pt: 5, ct: 3 } }),
  });
  const env = {
    SCOUT_HOME: join(dir.path, "home"),
    OPENAI_API_KEY: KEY,
    ANTHROPIC_API_KEY: KEY,
    AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
    AWS_REGION: TEST_AWS.region,
  };
  const backends = [
    ...["openai", "responses", "anthropic", "ollama", "vllm"].map((b) => [b, "m"]),
    ["bedrock", "anthropic.claude-3-haiku-20240307-v1:0"], // InvokeModel, event stream
    ["bedrock", "amazon.nova-lite-v1:0"], // Converse, event stream
  ];
  for (const [backend, model] of backends) {
    for (const stream of ["--stream", "--no-stream"]) {
      const args = [
        "llm",
        "ask",
        "-b",
        backend!,
        "-O",
        `url=${srv.url}`,
        "-m",
        model!,
        "--no-cache",
        stream,
        "Question?",
      ];
      const [bin, src] = await Promise.all([
        runBinary(args, { env, cwd: dir.path }),
        runScout(args, { env, cwd: dir.path }),
      ]);
      assert.equal(bin.code, 0, `${backend} ${stream}: ${bin.stderr}`);
      assert.equal(src.code, 0, `${backend} ${stream}: ${src.stderr}`);
      assert.equal(bin.stdout, "The answer is 42.\n");
      assert.equal(src.stdout, bin.stdout);
      assert.equal(bin.stderr, "");
    }
  }
  // keys: OPENAI_API_KEY for openai/responses, ANTHROPIC_API_KEY for anthropic; vllm and
  // ollama are keyless here (vllm sends the placeholder the SDK needs); bedrock signs (the
  // server checked each signature)
  const auth = srv.requests.map((r) =>
    (r.headers.authorization ?? r.headers["x-api-key"] ?? "none").replace(
      /^AWS4-HMAC-SHA256 .*/,
      "SigV4",
    )
  );
  assert.deepEqual(new Set(auth), new Set([`Bearer ${KEY}`, KEY, "none", "Bearer EMPTY", "SigV4"]));
});

Deno.test("llm ask binary: -o writes the chat, a piped question works, errors are one line with exit 1/2", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: KEY };
  const base = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m"];
  srv.script({ text: "Bonjour." });
  const r = await runBinary([...base, "-o", "s.chat"], {
    env,
    cwd: dir.path,
    stdin: "Say hello in French",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Bonjour.\n");
  const chat = parse(await Deno.readTextFile(join(dir.path, "s.chat"))).filter((m) =>
    m.content !== ""
  );
  assert.deepEqual(chat.map((m) => m.role), ["user", "meta", "assistant"]);
  assert.ok(!(await Deno.readTextFile(join(dir.path, "s.chat"))).includes(KEY));

  srv.script({ status: 401, message: "Invalid API key" });
  const e = await runBinary([...base, "--no-cache", "hello"], { env, cwd: dir.path });
  assert.equal(e.code, 1);
  assert.match(
    e.stderr,
    new RegExp(
      `^scout-ai: Provider "openai" answered HTTP 401: Invalid API key \\(url ${srv.url}\\) ` +
        `\\(snapshot: \\S+\\.chat\\)\n$`,
    ),
  );
  const u = await runBinary(["llm", "ask", "--no-such-flag"], { env, cwd: dir.path });
  assert.equal(u.code, 2);
  const v = await runBinary(["llm", "ask", "-b", "nosuch", "q"], { env, cwd: dir.path });
  assert.equal(v.code, 2); // -b's value: a usage error (R94-4)
  assert.match(v.stderr, /^scout-ai: Unknown backend: "nosuch"/);
});

Deno.test("config list from the binary hides keys", async () => {
  await buildBinary();
  await using dir = await tempDir();
  const env = { SCOUT_HOME: dir.path };
  await Deno.mkdir(join(dir.path, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(dir.path, "etc", "AI", "mini.yaml"),
    `backend: openai\nkey: ${KEY}\n`,
  );
  await Deno.writeTextFile(
    join(dir.path, "etc", "config"),
    `key ${KEY} openai\nendpoint mini ask\n`,
  );
  const r = await runBinary(["config", "list"], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes(KEY));
  assert.match(r.stdout, /mini\s+openai\s+-\s+key set/);
});

Deno.test("llm ask binary: Ctrl-C mid-stream exits 130, keeps the question and the partial answer in -o", async () => {
  await buildBinary();
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: Array.from({ length: 40 }, (_, i) => `w${i} `), chunkDelayMs: 100 });
  const child = new Deno.Command(BINARY, {
    args: [
      "llm",
      "ask",
      "-b",
      "openai",
      "-O",
      `url=${srv.url}`,
      "-m",
      "m",
      "--stream",
      "-o",
      "s.chat",
      "Tell a long story",
    ],
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: KEY, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // piped stdout holds text until it is known good: wait for the server's first bytes
  while (srv.requests[0]?.firstByteAt === undefined) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 400));
  child.kill("SIGINT");
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  assert.match(stderr, /scout-ai: Interrupted/);
  assert.match(stdout, /^w0 /);
  const chat = await Deno.readTextFile(join(dir.path, "s.chat"));
  assert.match(chat, /Tell a long story/);
  assert.match(chat, /incomplete=true/);
  // what was printed is the partial answer saved
  assert.equal(stdout, parse(chat).filter((m) => m.role === "assistant")[0]!.content + "\n");
});

Deno.test("llm ask: a key configured for the server's host is the one sent (Ruby get_url_config)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  const ask = async (config: string) => {
    await Deno.writeTextFile(join(home, "etc/config"), config);
    const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
    const r = await runScout([...args, "Q?"], {
      env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-env" },
      cwd: dir.path,
    });
    assert.equal(r.code, 0, r.stderr);
  };
  // 127.0.0.1 → scopes <s>.127, <s>.0, <s>.127.0, …, <s>.127.0.0.1 for each scope s
  await ask(
    "key sk-general ask\nkey sk-this-host openai_ask.127.0.0.1\nkey sk-other ask.10.0.0.9\n",
  );
  await ask("key sk-general ask\nkey sk-other ask.10.0.0.9\n");
  await ask("key sk-other ask.10.0.0.9\n");
  const sent = srv.requests.map((q) => q.headers.authorization);
  assert.deepEqual(sent, ["Bearer sk-this-host", "Bearer sk-general", "Bearer sk-env"]);
});
