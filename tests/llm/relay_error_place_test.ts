/**
 * A provider error of a relayed ask (`relay:` on an openai endpoint) names
 * the relay the request went through, never the url of the backend's
 * provider, which it never reached (R109-7): a worker's failure, no reply in
 * time, and a relay over ssh that cannot be read.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { tempDir } from "../support/cli.ts";

/** A client home with endpoint `relayed`: openai, through relay `server`. */
function clientHome(dir: string, server: string): string {
  const home = join(dir, "client-home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "relayed.yaml"),
    `backend: openai\nmodel: m\nrelay: ${JSON.stringify(server)}\nrequest_timeout: 0.3\n` +
      "max_retries: 0\nssh_command: 'false'\n",
  );
  return home;
}

function rejection(home: string): Promise<string> {
  return ask([{ role: "user", content: "anyone?" }], {
    endpoint: "relayed",
    persist: false,
    env: { SCOUT_HOME: home },
    session: newSession(),
  }).then(() => assert.fail("the ask succeeded"), (e) => String(e));
}

Deno.test("relay option: a worker's failure and no reply in time name the relay's queue, not the provider's url (R109-7)", async () => {
  await using d = await tempDir();
  const queue = join(d.path, "queue");
  const home = clientHome(d.path, queue);
  const late = await rejection(home);
  // the relay's own timeout, naming the queue and the worker to run (R167-7)
  assert.match(
    late,
    /No relay reply from .* after 0\.3 s \(is "scout-ai llm process_queries" running/,
  );
  assert.ok(late.includes(`(endpoint "relayed", relay ${queue})`), late);
  assert.ok(!late.includes("api.openai.com"), late);
  const [queued] = readdirSync(queue).filter((n) => n.endsWith(".json"));
  mkdirSync(join(queue, "response"));
  rmSync(join(queue, queued!));
  // a worker's failure while the client waits (a stored one is not reused: R167-3)
  const failing = rejection(home);
  while (!existsSync(join(queue, queued!))) await new Promise((r) => setTimeout(r, 5));
  writeFileSync(join(queue, "response", queued!), JSON.stringify({ error: "no GPU" }));
  const failed = await failing;
  assert.ok(
    failed.includes(
      `Provider "openai" answered HTTP 400: relay worker failed: no GPU (endpoint "relayed", relay ${queue})`,
    ),
    failed,
  );
  assert.ok(!failed.includes("api.openai.com"), failed);
});

Deno.test("relay option over ssh: a queue ssh cannot read names the relay, not the provider's url (R109-7)", async () => {
  await using d = await tempDir();
  const failed = await rejection(clientHome(d.path, "root@127.0.0.1:/q"));
  assert.match(
    failed,
    /^ScoutError: Cannot reach provider "openai": Relay via ssh to "root@127\.0\.0\.1"/,
  );
  assert.ok(failed.includes(`(endpoint "relayed", relay root@127.0.0.1:/q)`), failed);
  assert.ok(!failed.includes("api.openai.com"), failed);
});
