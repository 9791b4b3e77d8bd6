/**
 * A provider's error body cut short for the message is cut between
 * characters (R151-7): an emoji standing at the cut is left out whole, not
 * halved into a lone surrogate that a file or a terminal shows as U+FFFD
 * and that JSON writes as an escape strict parsers refuse.
 */
import assert from "node:assert/strict";
import { isScoutError } from "../../src/errors.ts";
import { ask } from "../../src/llm/ask.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { opts, question } from "./ask_support.ts";

const noRetry = { max_retries: "0" };

/** The provider's part of an error message (before the ` (url …)` the client adds). */
function said(e: Error): string {
  return e.message.replace(/^Provider "openai" answered HTTP \d+: /, "").split(" (url ")[0]!;
}

Deno.test("a text error body with an emoji at its 200-character cut ends before the emoji", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const body = "a".repeat(199) + "😀 and more after the cut";
  srv.script({ page: { status: 503, contentType: "text/plain", body } });
  await assert.rejects(() => ask(question, opts(srv, "openai", home.path, noRetry)), (e) => {
    assert.ok(isScoutError(e, "provider_http"), String(e));
    assert.ok(e.message.isWellFormed(), JSON.stringify(e.message));
    assert.equal(said(e), "a".repeat(199) + "…");
    return true;
  });
});

Deno.test("a JSON error message with an emoji at its 300-character cut ends before the emoji", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  const message = "b".repeat(299) + "🚫 quota, and more after the cut";
  srv.script({
    page: {
      status: 429,
      contentType: "application/json",
      body: JSON.stringify({ error: { message } }),
    },
  });
  await assert.rejects(() => ask(question, opts(srv, "openai", home.path, noRetry)), (e) => {
    assert.ok(isScoutError(e, "provider_http"), String(e));
    assert.ok(e.message.isWellFormed(), JSON.stringify(e.message));
    assert.equal(said(e), "b".repeat(299) + "…");
    return true;
  });
});
