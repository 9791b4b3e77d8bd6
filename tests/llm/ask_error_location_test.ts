/**
 * Provider errors name where they came from (R83-8): the endpoint when one
 * was used, the url without its credentials, and the failure snapshot —
 * against the loopback server, for every HTTP backend; and how
 * `locateError` words it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isScoutError, ScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import { atUrl, locateError } from "../../src/llm/error_location.ts";
import { networkError } from "../../src/llm/errors.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { BACKENDS, KEY, opts, question, recorder } from "./ask_support.ts";

for (const backend of BACKENDS) {
  Deno.test(`${backend}: an HTTP error names the endpoint, the url without credentials, and the snapshot`, async () => {
    await using home = await tempDir();
    await using cwd = await tempDir();
    await using srv = await startProviderServer();
    const port = new URL(srv.url).port;
    await Deno.mkdir(join(cwd.path, "etc", "AI"), { recursive: true });
    await Deno.writeTextFile(
      join(cwd.path, "etc", "AI", "bed.yaml"),
      `backend: ${backend}\nurl: http://user:SECRET-pw@127.0.0.1:${port}\nmodel: m\nkey: ${KEY}\n`,
    );
    srv.script({ status: 500, message: "internal boom" }, {
      status: 500,
      message: "internal boom",
    });
    const retried: string[] = [];
    const where = `(endpoint "bed", url http://user:***@127.0.0.1:${port})`; // the password masked
    await assert.rejects(
      () =>
        ask(question, {
          endpoint: "bed",
          cwd: cwd.path,
          env: { SCOUT_HOME: home.path },
          config: { entries: [] },
          max_retries: "1",
          sleep: recorder().sleep,
          onEvent: (e) => e.type === "retry" && retried.push((e.error as Error).message),
        }),
      (e) => {
        assert.ok(isScoutError(e, "provider_http"), String(e));
        assert.equal(e.endpoint, "bed");
        const snap = String(e.snapshotPath);
        assert.ok(snap.startsWith(join(home.path, "tmp", "ask")), snap);
        assert.equal(
          e.message,
          `Provider "${backend}" answered HTTP 500: internal boom ${where} (snapshot: ${snap}.chat)`,
        );
        assert.ok(Deno.statSync(`${snap}.chat`).isFile);
        return true;
      },
    );
    // the retry warning names them too (not the snapshot: it is written once, at the end)
    assert.deepEqual(retried, [`Provider "${backend}" answered HTTP 500: internal boom ${where}`]);
    assert.equal(srv.requests.length, 2);
  });

  Deno.test(`${backend}: a timeout names the url`, async () => {
    await using home = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "late", delayMs: 600 });
    await assert.rejects(
      () =>
        ask(question, opts(srv, backend, home.path, { request_timeout: "0.15", max_retries: "0" })),
      (e) => {
        assert.ok(isScoutError(e, "timeout"), String(e));
        assert.match(e.message, new RegExp(`did not answer within 0\\.15 s \\(url ${srv.url}\\) `));
        return true;
      },
    );
  });
}

Deno.test("locateError: the configured url first, else the one the adapter noted; once; never twice the url", () => {
  const http = () =>
    new ScoutError("provider_http", 'Provider "bedrock" answered HTTP 500: x', { phase: "query" });
  // no url configured: the adapter's (Bedrock's regional url), noted without credentials
  const e = atUrl(http(), "https://k:s@bedrock-runtime.eu-west-1.amazonaws.com?X-Amz-Signature=s");
  locateError(e, { endpoint: "bed" });
  assert.equal(
    (e as Error).message,
    'Provider "bedrock" answered HTTP 500: x (endpoint "bed", url https://k:***@bedrock-runtime.eu-west-1.amazonaws.com?X-Amz-Signature=***)',
  );
  locateError(e, { endpoint: "other", url: "http://elsewhere" });
  assert.match((e as Error).message, /\(endpoint "bed", [^)]*\)$/);
  // configured url wins; no endpoint → only the url
  const c = locateError(atUrl(http(), "http://noted"), { url: "http://configured:1/v1" });
  assert.match((c as Error).message, /: x \(url http:\/\/configured:1\/v1\)$/);
  // a network error already says "at <url>": only the endpoint is added
  const n = locateError(networkError("openai", new Error("refused"), "http://h:1/v1"), {
    endpoint: "loop",
    url: "http://h:1",
  });
  assert.equal(
    (n as Error).message,
    'Cannot reach provider "openai" at http://h:1/v1: refused (endpoint "loop")',
  );
  // errors outside a query (configuration, tools) are left alone
  const cfg = new ScoutError("config", "No key");
  assert.equal((locateError(cfg, { endpoint: "x", url: "http://h" }) as Error).message, "No key");
});
