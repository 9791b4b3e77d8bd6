/**
 * Faults against the loopback server for every backend: 429 + retry-after,
 * 500, malformed JSON, a stream cut mid-way, a slow first byte, the round
 * cap, bad tool calls, replies without choices — and no secret on disk.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseMeta } from "../../src/chat/meta.ts";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";

const BACKENDS = ["responses", "openai", "anthropic", "ollama", "vllm"] as const;
const KEY = "sk-loopback-SECRET-4f1c";

function opts(
  srv: ProviderServer,
  backend: string,
  home: string,
  extra: AskOptions = {},
): AskOptions {
  return {
    backend,
    url: srv.url,
    model: "test-model",
    key: KEY,
    persist: false,
    env: { SCOUT_HOME: home },
    config: { entries: [] },
    session: newSession(),
    ...extra,
  };
}

const question: Message[] = [{ role: "user", content: "Hi?" }];

function recorder() {
  const delays: number[] = [];
  return { delays, sleep: (ms: number) => (delays.push(ms), Promise.resolve()) };
}

const echoTool = () =>
  toolRegistry({
    lookup: [(_n, a) => `found ${a.q}`, {
      name: "lookup",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    }],
  });

for (const backend of BACKENDS) {
  Deno.test(`${backend}: 429 with retry-after is retried after that delay`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ status: 429, retryAfter: 2, message: "Slow down" }, { text: "ok" });
    const { delays, sleep } = recorder();
    const retries: number[] = [];
    const r = await ask(
      question,
      opts(srv, backend, home.path, {
        sleep,
        onEvent: (e) => e.type === "retry" && retries.push(e.attempt),
      }),
    );
    assert.equal(r.text, "ok");
    assert.deepEqual(delays, [2000]);
    assert.deepEqual(retries, [1]);
    assert.equal(srv.requests.length, 2);
  });

  Deno.test(`${backend}: a retry-after beyond max_retry_after fails at once and says so`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ status: 429, retryAfter: 3600, message: "Slow down" });
    const { delays, sleep } = recorder();
    await assert.rejects(() => ask(question, opts(srv, backend, home.path, { sleep })), (e) => {
      assert.ok(isScoutError(e, "provider_http"), String(e));
      assert.equal(e.attempts, 1);
      assert.equal(
        e.message,
        `Provider "${backend}" answered HTTP 429: Slow down; retry-after 3600 s exceeds the 60 s limit (max_retry_after)`,
      );
      return true;
    });
    assert.deepEqual(delays, []);
    assert.equal(srv.requests.length, 1);
    // the limit is a setting: raised, the same reply is waited for
    srv.script({ status: 429, retryAfter: 3600 }, { text: "ok" });
    const r = await ask(
      question,
      opts(srv, backend, home.path, { sleep, max_retry_after: "7200" }),
    );
    assert.equal(r.text, "ok");
    assert.deepEqual(delays, [3_600_000]);
    // and is never sent to the provider
    assert.equal(srv.requests.at(-1)!.body.max_retry_after, undefined);
  });

  Deno.test(`${backend}: 500 is retried with backoff, then a typed provider_http error`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script(...Array.from({ length: 4 }, () => ({ status: 500, message: "Boom" })));
    const { delays, sleep } = recorder();
    await assert.rejects(() => ask(question, opts(srv, backend, home.path, { sleep })), (e) => {
      assert.ok(isScoutError(e, "provider_http"), String(e));
      assert.equal(e.status, 500);
      assert.equal(e.attempts, 4);
      assert.equal(e.backend, backend);
      assert.equal(e.model, "test-model");
      assert.match(e.message, new RegExp(`^Provider "${backend}" answered HTTP 500: Boom`));
      return true;
    });
    assert.equal(srv.requests.length, 4);
    assert.equal(delays.length, 3);
    // 0.5 s doubling, ±20 % jitter
    [500, 1000, 2000].forEach((base, i) =>
      assert.ok(delays[i]! >= base * 0.8 && delays[i]! <= base * 1.2, `${delays}`)
    );
  });

  Deno.test(`${backend}: malformed JSON is a provider_response error, not retried`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ malformed: true });
    await assert.rejects(
      () => ask(question, opts(srv, backend, home.path, { sleep: recorder().sleep })),
      (e) => {
        assert.ok(isScoutError(e, "provider_response"), String(e));
        assert.equal(e.phase, "process_response");
        // the start of the body, as every backend quotes it
        assert.match(e.message, /sent malformed JSON: \{"id": "broken"/);
        return true;
      },
    );
    assert.equal(srv.requests.length, 1);
  });

  Deno.test(`${backend}: a stream cut mid-way is retried; a stream that always breaks fails typed`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: ["Hel", "lo ", "wor", "ld"], cutAfter: 3 }, { text: ["Hello ", "world"] });
    const deltas: string[] = [];
    const events: string[] = [];
    const r = await ask(
      question,
      opts(srv, backend, home.path, {
        stream: true,
        sleep: recorder().sleep,
        onEvent: (e) => {
          if (e.type === "text") deltas.push(e.delta);
          if (e.type === "retry") events.push("retry");
        },
      }),
    );
    assert.equal(r.text, "Hello world");
    assert.deepEqual(events, ["retry"]);
    assert.equal(srv.requests.length, 2);
    assert.equal(deltas.slice(-2).join(""), "Hello world");

    srv.script(...Array.from({ length: 2 }, () => ({ text: ["a", "b", "c"], cutAfter: 2 })));
    await assert.rejects(
      () =>
        ask(
          question,
          opts(srv, backend, home.path, {
            stream: true,
            max_retries: "1",
            sleep: recorder().sleep,
          }),
        ),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.equal(e.network, true);
        // it says the stream ended early, with what arrived — not "Cannot reach provider"
        assert.equal(e.streamCut, true);
        assert.equal(e.events, 2);
        assert.ok(typeof e.bytes === "number" && e.bytes > 0, String(e.bytes));
        assert.equal(
          e.message,
          `The stream from provider "${backend}" ended early, after 2 events (${e.bytes} bytes), before the reply was complete`,
        );
        assert.doesNotMatch(e.message, /Cannot reach|fetch\(\)|verbose/);
        return true;
      },
    );
    assert.equal(srv.requests.length, 4);
  });

  Deno.test(`${backend}: a first byte slower than request_timeout is a typed timeout`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "late", delayMs: 600 }, { text: "in time", delayMs: 50 });
    await assert.rejects(
      () =>
        ask(question, opts(srv, backend, home.path, { request_timeout: "0.15", max_retries: "0" })),
      (e) => {
        assert.ok(isScoutError(e, "timeout"), String(e));
        assert.match(e.message, /did not answer within 0\.15 s/);
        return true;
      },
    );
    const r = await ask(question, opts(srv, backend, home.path, { request_timeout: "2" }));
    assert.equal(r.text, "in time");
  });

  Deno.test(`${backend}: a body that stops after the headers is a typed timeout`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "never whole", stallAfter: 12 }, { text: "whole" });
    const t0 = performance.now();
    // an unbounded body read would hang the test: fail it instead, after 5 s
    let guard: ReturnType<typeof setTimeout> | undefined;
    const unbounded = new Promise<never>((_, reject) => {
      guard = setTimeout(() => reject(new Error("reading the body is not bounded")), 5_000);
    });
    await assert.rejects(
      () =>
        Promise.race([
          ask(
            question,
            opts(srv, backend, home.path, { request_timeout: "0.2", max_retries: "0" }),
          ),
          unbounded,
        ]).finally(() => clearTimeout(guard)),
      (e) => {
        assert.ok(isScoutError(e, "timeout"), String(e));
        assert.match(e.message, /did not answer within 0\.2 s/);
        return true;
      },
    );
    assert.ok(performance.now() - t0 < 5_000, "the timeout covers reading the body");
    const r = await ask(question, opts(srv, backend, home.path, {}));
    assert.equal(r.text, "whole");
  });

  Deno.test(`${backend}: the round cap stops an endless tool loop with the messages so far`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer({
      fallback: () => ({ toolCalls: [{ name: "lookup", arguments: { q: "again" } }] }),
    });
    await assert.rejects(
      () =>
        ask(question, opts(srv, backend, home.path, { tools: echoTool(), max_tool_rounds: "3" })),
      (e) => {
        assert.ok(isScoutError(e, "tool_loop_limit"), String(e));
        assert.match(e.message, /after 3 rounds/);
        const roles = (e.messages as Message[]).map((m) => m.role);
        assert.equal(roles.filter((r) => r === "meta").length, 3);
        assert.equal(roles.filter((r) => r === "function_call_output").length, 3);
        return true;
      },
    );
    assert.equal(srv.requests.length, 3);
  });

  Deno.test(`${backend}: unknown tools and invalid arguments get error outputs and the loop continues`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script(
      {
        toolCalls: [{ name: "no_such_tool", arguments: {} }, {
          name: "lookup",
          arguments: { q: 5 },
        }],
      },
      { text: "Sorry, recovered." },
    );
    const r = await ask(question, opts(srv, backend, home.path, { tools: echoTool() }));
    assert.equal(r.text, "Sorry, recovered.");
    const outputs = r.messages.filter((m) => m.role === "function_call_output").map((m) =>
      JSON.parse(String(m.content))
    );
    assert.deepEqual(outputs.map((o) => o.error), ["error", "error"]);
    const second = JSON.stringify(srv.requests[1]!.body);
    assert.ok(second.includes("Tool or function not found 'no_such_tool'"), second);
    assert.ok(second.includes("must be string, got number"), second);
  });

  Deno.test(`${backend}: a failure in round 2 carries round 1's messages and writes a redacted snapshot`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, {
      status: 400,
      message: "Bad request",
    });
    await assert.rejects(
      () => ask(question, opts(srv, backend, home.path, { tools: echoTool() })),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"));
        assert.equal(e.status, 400);
        assert.equal(e.attempts, 1);
        assert.deepEqual((e.messages as Message[]).map((m) => m.role), [
          "meta",
          "function_call",
          "function_call_output",
        ]);
        const snap = String(e.snapshotPath);
        assert.ok(snap.startsWith(join(home.path, "tmp", "ask")));
        const options = JSON.parse(Deno.readTextFileSync(`${snap}.options.json`));
        assert.equal(options.key, "[REDACTED]");
        assert.match(Deno.readTextFileSync(`${snap}.chat`), /Hi\?/);
        return true;
      },
    );
  });
}

Deno.test("replies without choices/content/output are typed provider_response errors", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const cases: Array<[string, unknown, RegExp]> = [
    ["openai", { id: "x", object: "chat.completion", choices: [] }, /no choices/],
    ["anthropic", { id: "x", type: "message" }, /without content/],
    ["ollama", { model: "m", done: true }, /without a message/],
    ["responses", { id: "x", object: "response" }, /without an output list|cannot be read/],
  ];
  for (const [backend, raw, re] of cases) {
    srv.script({ raw });
    await assert.rejects(() => ask(question, opts(srv, backend, home.path)), (e) => {
      assert.ok(isScoutError(e, "provider_response"), `${backend}: ${e}`);
      assert.match(e.message, re);
      return true;
    });
  }
});

Deno.test("bad input: unknown endpoint, unknown backend, missing key, unknown prompt strategy", async () => {
  await using home = await tempDir();
  const base: AskOptions = {
    env: { SCOUT_HOME: home.path },
    cwd: home.path,
    config: { entries: [] },
    persist: false,
  };
  await assert.rejects(
    () => ask(question, { ...base, endpoint: "nope" }),
    (e) => isScoutError(e, "endpoint_not_found"),
  );
  // a name from the environment or config says where it came from (§1.2)
  await assert.rejects(
    () => ask(question, { ...base, env: { SCOUT_HOME: home.path, LLM: "1" } }),
    (e) =>
      isScoutError(e, "endpoint_not_found") &&
      e.message === 'Endpoint not found "1" (named by the environment variable LLM)',
  );
  await assert.rejects(
    () =>
      ask(question, {
        ...base,
        config: { entries: [{ key: "endpoint", value: "gone", tokens: ["ask"] }] },
      }),
    (e) =>
      isScoutError(e, "endpoint_not_found") &&
      e.message === `Endpoint not found "gone" (named by the config key "endpoint")`,
  );
  await assert.rejects(
    () => ask(question, { ...base, backend: "nope" }),
    (e) => isScoutError(e, "unknown_backend"),
  );
  await assert.rejects(() => ask(question, { ...base, backend: "anthropic" }), (e) => {
    assert.ok(isScoutError(e, "missing_key"));
    assert.match(e.message, /ANTHROPIC_KEY or ANTHROPIC_API_KEY/);
    return true;
  });
  // OpenWebUI has no default host: no url is a config error, not a request to api.openai.com
  await assert.rejects(
    () =>
      ask(question, {
        ...base,
        backend: "openwebui",
        fetch: () => Promise.reject(new Error("no request may be sent")),
      }),
    (e) => isScoutError(e, "config") && /set OPENWEBUI_URL/.test(e.message),
  );
  await assert.rejects(
    () => ask(question, { ...base, backend: "ollama", prompt_strategies: "nonesuch" }),
    (e) => isScoutError(e, "unknown_strategy"),
  );
  // a chat line names the endpoint: the chat wins over the call
  await assert.rejects(
    () =>
      ask([{ role: "endpoint", content: "from-chat" }, ...question], {
        ...base,
        endpoint: "from-call",
      }),
    (e) => isScoutError(e, "endpoint_not_found") && /from-chat/.test(e.message),
  );
  await assert.rejects(
    () => ask([{ role: "agent", content: "helper" }, ...question], { ...base, backend: "ollama" }),
    (e) => isScoutError(e, "not_available"),
  );
});

Deno.test("no secret on disk: a run with a key writes it nowhere under SCOUT_HOME (cache, snapshots)", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  await using srv = await startProviderServer();
  await Deno.mkdir(join(cwd.path, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(cwd.path, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: m\nkey: ${KEY}\n`,
  );
  srv.script({ toolCalls: [{ name: "lookup", arguments: { q: "k" } }] }, { text: "done" }, {
    status: 500,
  }, { status: 500 });
  const common: AskOptions = {
    endpoint: "loop",
    cwd: cwd.path,
    env: { SCOUT_HOME: home.path, OPENAI_API_KEY: KEY },
    config: { entries: [] },
    tools: echoTool(),
    max_retries: "1",
    sleep: recorder().sleep,
  };
  const r = await ask(question, common);
  assert.equal(r.text, "done");
  await assert.rejects(() => ask([{ role: "user", content: "fails" }], common));
  assert.equal(srv.requests[0]!.headers.authorization, `Bearer ${KEY}`);
  let files = 0;
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) await walk(p);
      else {
        files++;
        assert.ok(!(await Deno.readTextFile(p)).includes(KEY), `key found in ${p}`);
      }
    }
  };
  await walk(home.path);
  assert.ok(files >= 4, `expected cache and snapshot files, saw ${files}`);
  assert.ok(!JSON.stringify(r.messages).includes(KEY));
  assert.equal(parseMeta(String(r.messages[0]!.content)).key, undefined);
});

Deno.test("uncompiled messages are refused before any request (compile first)", async () => {
  await using home = await tempDir();
  await assert.rejects(
    () =>
      ask([{ role: "file", content: "notes.md" }, ...question], {
        env: { SCOUT_HOME: home.path },
        backend: "ollama",
      }),
    (e) => {
      assert.ok(isScoutError(e, "invalid_input"));
      assert.match(e.message, /Compile the chat before asking: found "file:"/);
      return true;
    },
  );
});
