/**
 * A `relay:` option client waits at most `request_timeout` (R167-7): no
 * worker, default retries, and the ask fails once, after about one timeout,
 * naming the queue, the request id and the worker command to run there.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("relay option: no worker fails after request_timeout, once, naming queue, request and worker (R167-7)", async () => {
  await using d = await tempDir();
  const queue = join(d.path, "queue");
  const home = join(d.path, "client-home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  // max_retries left at its default (3): a timeout of the relay wait is not one to retry
  writeFileSync(
    join(home, "etc", "AI", "relayed.yaml"),
    `backend: openai\nmodel: m\nrelay: ${JSON.stringify(queue)}\nrequest_timeout: 1\n`,
  );
  const warnings: string[] = [];
  const t0 = Date.now();
  const e = await ask([{ role: "user", content: "anyone?" }], {
    endpoint: "relayed",
    persist: false,
    env: { SCOUT_HOME: home },
    session: newSession(),
    warn: (m: string) => warnings.push(m),
  }).then(() => assert.fail("the ask succeeded"), (e) => e as Error);
  const took = Date.now() - t0;
  assert.ok(took >= 900 && took < 2900, `took ${took} ms`);
  const [queued] = readdirSync(queue).filter((n) => n.endsWith(".json"));
  const id = queued!.slice(0, -".json".length);
  assert.match(
    e.message,
    new RegExp(
      `^No relay reply from ${queue} for request ${id} after 1 s \\(is "scout-ai llm process_queries" running there\\?\\)`,
    ),
  );
  assert.deepEqual(warnings.filter((w) => /retrying/.test(w)), []);
});
