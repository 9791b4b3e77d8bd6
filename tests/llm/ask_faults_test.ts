/**
 * Faults against the loopback server for every backend: 429 + retry-after,
 * 500, malformed JSON, a stream cut mid-way, a slow first byte, the round
 * cap, bad tool calls (ask_faults_input_test.ts: bad input, replies without
 * content, no secret on disk).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Message } from "../../src/chat/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { BACKENDS, echoTool, opts, question, recorder, streamOpts } from "./ask_support.ts";

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
        `Provider "${backend}" answered HTTP 429: Slow down (url ${srv.url}); retry-after 3600 s exceeds the 60 s limit (max_retry_after) (snapshot: ${e.snapshotPath}.chat)`,
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
      streamOpts(srv, backend, home.path, {
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
      () => ask(question, streamOpts(srv, backend, home.path, { max_retries: "1" })),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.equal(e.network, true);
        // it says the stream ended early, with what arrived — not "Cannot reach provider"
        assert.equal(e.streamCut, true);
        assert.equal(e.events, 2);
        assert.ok(typeof e.bytes === "number" && e.bytes > 0, String(e.bytes));
        assert.equal(
          e.message,
          `The stream from provider "${backend}" ended early, after 2 events (${e.bytes} bytes), before the reply was complete (url ${srv.url}) (snapshot: ${e.snapshotPath}.chat)`,
        );
        assert.doesNotMatch(e.message, /Cannot reach|fetch\(\)|verbose/);
        return true;
      },
    );
    assert.equal(srv.requests.length, 4);
  });

  Deno.test(`${backend}: a stream that ends cleanly inside an event ended early: retried, not "malformed JSON"`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    // the body closes cleanly half-way through event 3 (R83-7)
    const cut = { text: ["Hel", "lo ", "wor", "ld"], endInside: 3 };
    srv.script(cut, { text: ["Hello ", "world"] });
    const retries: unknown[] = [];
    const r = await ask(
      question,
      streamOpts(srv, backend, home.path, {
        onEvent: (e) => e.type === "retry" && retries.push(e.error),
      }),
    );
    assert.equal(r.text, "Hello world");
    assert.equal(retries.length, 1);
    assert.ok(isScoutError(retries[0]) && retries[0].streamCut === true, String(retries[0]));
    srv.script(cut, cut);
    await assert.rejects(
      () => ask(question, streamOpts(srv, backend, home.path, { max_retries: "1" })),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.equal(e.streamCut, true);
        assert.equal(e.events, 3);
        assert.match(e.message, /ended early, after 3 events/);
        assert.doesNotMatch(e.message, /malformed/);
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

  Deno.test(`${backend}: a refused connection names the address, without its credentials`, async () => {
    await using home = await tempDir();
    const srv = await startProviderServer();
    const url = new URL(srv.url);
    await srv.close(); // nothing listens there now
    url.username = "user";
    url.password = "SECRET-pw";
    url.search = "?api-key=SECRET-q";
    await assert.rejects(
      () => ask(question, opts(srv, backend, home.path, { url: url.href, max_retries: 0 })),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        // the address the request went to, without the password or a key's value
        const at =
          `Cannot reach provider "${backend}" at http://user:***@${url.host}/?api-key=***:`;
        assert.ok(e.message.startsWith(at), e.message);
        assert.doesNotMatch(e.message, /SECRET/);
        return true;
      },
    );
  });
}
