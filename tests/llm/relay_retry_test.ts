/**
 * A worker's `{"error": …}` reply is not a permanent answer (R167-3): with
 * the provider stopped the ask fails, and once the provider is back the same
 * ask reaches it (through a real `llm process` worker subprocess), rather
 * than rereading the stored error. The same for the `relay:` option's
 * `response/` files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { runMain, spawnScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { workerHome } from "../support/relay_worker.ts";

const client = (dir: string, extra: Record<string, unknown>) => ({
  persist: false,
  env: { SCOUT_HOME: join(dir, "client-home") },
  config: { entries: [] },
  session: newSession(),
  request_timeout: 60,
  ...extra,
});

Deno.test("relay: an error reply after an outage is not reused; the retry reaches the provider (R167-3)", async () => {
  await using dir = await tempDir();
  const first = await startProviderServer();
  const port = first.port;
  const env = await workerHome(dir.path, first);
  await Deno.writeTextFile(join(env.SCOUT_HOME!, "etc", "AI", "loop.yaml"), `max_retries: 0\n`, {
    append: true,
  });
  await first.close();
  const queue = join(dir.path, "queue");
  await Deno.mkdir(queue, { recursive: true });
  const worker = spawnScout(["llm", "process", "--interval", "0.05", queue], {
    cwd: dir.path,
    env: { ...env, HOME: dir.path },
  });
  const output = worker.output();
  const q = [{ role: "user", content: "transient outage question" }];
  const opts = client(dir.path, { backend: "relay", server: queue });
  try {
    await assert.rejects(() => ask(q, opts), /worker failed: .*(refused|connect)/i);
    // the error reply was consumed by the client that read it
    assert.deepEqual([...Deno.readDirSync(join(queue, "reply"))], []);
    await using srv = await startProviderServer({ port });
    srv.script({ text: "Back again." });
    const r = await ask(q, opts);
    assert.equal(r.text, "Back again.");
    assert.equal(srv.requests.length, 1);
  } finally {
    worker.kill("SIGTERM");
    await output;
  }
});

Deno.test("relay: a stored error reply is dropped and the request queued anew (R167-3)", async () => {
  await using dir = await tempDir();
  const queue = join(dir.path, "query");
  await using srv = await startProviderServer();
  const env = await workerHome(dir.path, srv);
  srv.script({ text: "Fresh." });
  // no worker: the request is queued; then a failure is saved as its response
  const opts = client(dir.path, {
    backend: "openai",
    model: "m",
    relay: queue,
    request_timeout: 0.3,
  });
  const q = [{ role: "user", content: "hello?" }];
  await assert.rejects(() => ask(q, opts), /relay|reply|time/i);
  const queued = [...Deno.readDirSync(queue)].filter((e) => e.isFile).map((e) => e.name);
  assert.equal(queued.length, 1, String(queued));
  await Deno.mkdir(join(queue, "response"), { recursive: true });
  await Deno.writeTextFile(join(queue, "response", queued[0]!), JSON.stringify({ error: "down" }));
  await Deno.remove(join(queue, queued[0]!));
  let done = false;
  const loop = (async () => {
    while (!done) {
      await runMain(["llm", "process_queries", "--once", queue], { env, cwd: dir.path });
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const r = await ask(q, { ...opts, request_timeout: 60 });
    assert.equal(r.text, "Fresh.");
    assert.equal(srv.requests.length, 1);
  } finally {
    done = true;
    await loop;
  }
});
