/**
 * Typed provider failures (`src/llm/errors.ts`): a network error's message
 * shows where the request went and why it failed, never the credentials of
 * a url in either (R83-1).
 */
import assert from "node:assert/strict";
import { networkError } from "../../src/llm/errors.ts";

Deno.test("networkError: a cause naming the url with ?key= or a password is shown masked (R83-1)", () => {
  const cause = new TypeError(
    "error sending request for url (http://bob:PW-1@127.0.0.1:9/v1/chat/completions?key=QK-2): refused",
  );
  const e = networkError("openai", cause, "http://bob:PW-1@127.0.0.1:9/v1?key=QK-2");
  assert.equal(
    e.message,
    'Cannot reach provider "openai" at http://bob:***@127.0.0.1:9/v1?key=***: error sending request for url ' +
      "(http://bob:***@127.0.0.1:9/v1/chat/completions?key=***): refused",
  );
  assert.equal(e.cause, cause, "the cause itself is kept (--debug masks it as it prints)");
});
