/**
 * A worker's `{"error": …}` reply text (R167-9): the reason, without the
 * worker's provider url or its local failure snapshot (both in the message a
 * real failed ask throws, which the worker's log keeps); an unreadable or
 * non-JSON request file is a `Bad relay request`.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { replyErrorText } from "../../src/llm/queue_reply_error.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

Deno.test("replyErrorText: a failed ask's reason without the worker's url and snapshot path (R167-9)", async () => {
  await using d = await tempDir();
  const srv = await startProviderServer();
  const url = srv.url;
  await srv.close(); // the provider is down: connection refused
  const home = join(d.path, "worker-home");
  const e = await ask([{ role: "user", content: "hi" }], {
    backend: "openai",
    url: `${url}/v1`,
    model: "m",
    key: "sk-worker-only",
    max_retries: 0,
    env: { SCOUT_HOME: home },
    config: { entries: [] },
    session: newSession(),
  }).then(() => assert.fail("the ask succeeded"), (e) => e as Error);
  // the worker's log line has both
  assert.ok(e.message.includes("127.0.0.1"), e.message);
  assert.match(e.message, /snapshot: /);
  const text = replyErrorText(e);
  assert.match(text, /^Cannot reach provider "openai"/);
  assert.match(text, /refused|connect/i);
  assert.ok(!text.includes("127.0.0.1"), text);
  assert.ok(!text.includes(home), text);
  assert.doesNotMatch(text, /snapshot/);
});

Deno.test("replyErrorText: a request file that is not JSON or is a directory is a Bad relay request (R167-9)", async () => {
  await using d = await tempDir();
  const json = (() => {
    try {
      JSON.parse("{not json");
    } catch (e) {
      return e;
    }
  })();
  assert.match(replyErrorText(json), /^Bad relay request: not JSON \(/);
  const dir = join(d.path, "0123456789abcdef0123456789abcdef.json");
  mkdirSync(dir);
  const eisdir = (() => {
    try {
      readFileSync(dir, "utf8");
    } catch (e) {
      return e;
    }
  })();
  assert.equal(replyErrorText(eisdir), "Bad relay request: cannot read it (EISDIR)");
  assert.ok(!replyErrorText(eisdir).includes(d.path));
});
