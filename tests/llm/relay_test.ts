/**
 * `backend: relay` through a local queue directory with a real `llm process`
 * worker (in-process and as a subprocess) answering from the loopback
 * provider; `llm process_queries` saving raw provider responses; bad requests,
 * claims, signals and timeouts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { workerHome } from "../support/relay_worker.ts";
import { md5hex } from "../../src/util/hash.ts";

/** A request's name: an MD5 hex digest, as relay clients name it. */
const id = (label: string) => md5hex(label);

function clientOptions(dir: string, queue: string, extra: Record<string, unknown> = {}) {
  return {
    backend: "relay",
    server: queue,
    persist: false,
    env: { SCOUT_HOME: join(dir, "client-home") },
    config: { entries: [] },
    session: newSession(),
    ...extra,
  };
}

Deno.test("relay via a local directory: the worker answers with its own endpoint; the key stays there", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "queue");
  const env = await workerHome(dir.path, srv);
  srv.script({ text: "Paris.", usage: { pt: 7, ct: 2 } });
  // a deadline, not the default 1200 s: a worker that never answers fails the test, not hangs it
  const answer = ask(
    [{ role: "user", content: "Capital of France?" }],
    clientOptions(dir.path, queue, { temperature: "0.2", request_timeout: 90 }),
  );
  // the worker starts after the request is queued (the client polls); on a loaded machine the
  // client may take seconds to queue it, so the worker tries for up to 90 s, not 100 times
  let worker;
  for (const until = Date.now() + 90_000; Date.now() < until;) {
    worker = await runMain(["llm", "process", "--once", "--json", queue], { env, cwd: dir.path });
    if (JSON.parse(worker.stdout).answered > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const r = await answer;
  assert.equal(r.text, "Paris.");
  assert.equal(r.backend, "relay");
  assert.deepEqual(JSON.parse(worker!.stdout), { version: 1, dir: queue, answered: 1, failed: 0 });
  // the provider saw the worker's model and key, and the client's parameter
  const req = srv.requests[0]!;
  assert.equal(req.body.model, "worker-model");
  assert.equal(req.body.temperature, 0.2);
  assert.equal(req.headers.authorization, "Bearer sk-worker-only");
  // the request is gone, the reply is the JSON-encoded text
  const left = [...Deno.readDirSync(queue)].filter((e) => e.isFile).map((e) => e.name);
  assert.deepEqual(left, []);
  const replies = [...Deno.readDirSync(join(queue, "reply"))].map((e) => e.name);
  assert.equal(replies.length, 1);
  assert.equal(await Deno.readTextFile(join(queue, "reply", replies[0]!)), '"Paris."');
  // the same question again is answered from the reply at once (Ruby's digest naming)
  const again = await ask([{ role: "user", content: "Capital of France?" }], {
    ...clientOptions(dir.path, queue, { temperature: "0.2" }),
    request_timeout: 1,
  });
  assert.equal(again.text, "Paris.");
  assert.equal(srv.requests.length, 1);
});

Deno.test("llm process: a bad request gets an error reply and is kept aside; the loop goes on", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "queue");
  await Deno.mkdir(queue, { recursive: true });
  const env = await workerHome(dir.path, srv);
  await Deno.writeTextFile(join(queue, `${id("aaa")}.json`), "{not json");
  const settled = new Date(Date.now() - 10_000); // not still being written (R167-5)
  await Deno.utime(join(queue, `${id("aaa")}.json`), settled, settled);
  await Deno.writeTextFile(join(queue, `${id("bbb")}.json`), JSON.stringify({ question: 42 }));
  await Deno.writeTextFile(
    join(queue, `${id("ccc")}.json`),
    JSON.stringify({ question: "user: hi" }),
  );
  srv.script({ text: "hello" });
  const w = await runMain(["llm", "process", "--once", queue], { env, cwd: dir.path });
  assert.equal(w.code, 1, w.stderr); // --once: a failed request fails the run (R167-9)
  assert.match(w.stderr, /1 answered, 2 failed/);
  const reply = (name: string) => Deno.readTextFileSync(join(queue, "reply", `${id(name)}.json`));
  assert.match(JSON.parse(reply("aaa")).error, /JSON/);
  assert.match(JSON.parse(reply("bbb")).error, /"question" must be chat text/);
  assert.equal(reply("ccc"), '"hello"');
  assert.deepEqual(
    [...Deno.readDirSync(join(queue, "failed"))].map((e) => e.name).sort(),
    [
      `${id("aaa")}.json`,
      `${id("bbb")}.json`,
    ].sort(),
  );
});

Deno.test("relay client: a stored error reply is not reused; no worker means a timeout naming the request", async () => {
  await using dir = await tempDir();
  const queue = join(dir.path, "queue");
  const opts = clientOptions(dir.path, queue, { request_timeout: 0.3 });
  const t0 = Date.now();
  await assert.rejects(() => ask([{ role: "user", content: "anyone?" }], opts), (e) => {
    assert.match(
      String(e),
      new RegExp(
        `No relay reply from ${queue} for request [0-9a-f]{32} after 0.3 s \\(is "scout-ai llm process" running there\\?\\)`,
      ),
    );
    return true;
  });
  assert.ok(Date.now() - t0 < 5000);
  // the request stays queued for a worker that comes later
  const queued = [...Deno.readDirSync(queue)].filter((e) => e.isFile).map((e) => e.name);
  assert.equal(queued.length, 1);
  await Deno.mkdir(join(queue, "reply"), { recursive: true });
  await Deno.writeTextFile(join(queue, "reply", queued[0]!), JSON.stringify({ error: "no GPU" }));
  await Deno.remove(join(queue, queued[0]!));
  // a stored failure is not the answer: it is dropped and the request queued again (R167-3)
  await assert.rejects(() => ask([{ role: "user", content: "anyone?" }], opts), /No relay reply/);
  assert.deepEqual([...Deno.readDirSync(join(queue, "reply"))], []);
  assert.ok(Deno.statSync(join(queue, queued[0]!)).isFile);
  await assert.rejects(
    () => ask([{ role: "user", content: "x" }], { ...opts, server: undefined }),
    /No relay server/,
  );
});

Deno.test("llm process as a subprocess: SIGTERM stops it cleanly and puts the request being answered back", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "queue");
  await Deno.mkdir(queue, { recursive: true });
  const env = await workerHome(dir.path, srv);
  // the reply is held until the test ends: the worker can only end before it by the abort
  let release = () => {};
  srv.script({ text: "slow", until: new Promise<void>((r) => release = r) });
  await Deno.writeTextFile(
    join(queue, `${id("req1")}.json`),
    JSON.stringify({ question: "user: hi" }),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "cli.ts"), "llm", "process", queue],
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  try {
    // wait until the worker has claimed the request and the provider has it: a deadline, as
    // a start from source took 5-8 s on a loaded machine (a fresh one transpiles it first)
    let ended = false;
    output.finally(() => ended = true).catch(() => {});
    const until = Date.now() + 60_000;
    while (srv.requests.length === 0 && !ended && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(srv.requests.length, 1, ended ? "the worker ended first" : "60 s passed");
    // the request and its holder record (R167-1)
    assert.deepEqual([...Deno.readDirSync(join(queue, "working"))].map((e) => e.name).sort(), [
      `${id("req1")}.holder`,
      `${id("req1")}.json`,
    ]);
    child.kill("SIGTERM");
    // the abort cut the provider request short: the worker ends while the reply is held
    let timer: ReturnType<typeof setTimeout> | undefined;
    const out = await Promise.race([
      output,
      new Promise<"late">((r) => timer = setTimeout(() => r("late"), 60_000)),
    ]).finally(() => clearTimeout(timer));
    assert.ok(out !== "late", "the worker waited for the provider");
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.match(stderr, /0 answered, 0 failed/);
    assert.ok(
      Deno.statSync(join(queue, `${id("req1")}.json`)).isFile,
      "the request is back in the queue",
    );
    assert.deepEqual([...Deno.readDirSync(join(queue, "working"))], []);
  } finally {
    release();
    try {
      child.kill("SIGKILL");
    } catch { /* ended */ }
    await output.catch(() => {});
  }
});

Deno.test("llm process_queries: one provider request, the raw response saved; tools are not run on the worker", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "query");
  await Deno.mkdir(queue, { recursive: true });
  const env = await workerHome(dir.path, srv);
  srv.script({ toolCalls: [{ name: "weather", arguments: { city: "Oslo" }, id: "call_9" }] });
  await Deno.writeTextFile(
    join(queue, `${id("q1")}.json`),
    JSON.stringify([[{ role: "user", content: "weather in Oslo?" }], { temperature: 0 }]),
  );
  const w = await runMain(["llm", "process_queries", "--once", queue], { env, cwd: dir.path });
  assert.equal(w.code, 0, w.stderr);
  assert.equal(srv.requests.length, 1);
  const raw = JSON.parse(await Deno.readTextFile(join(queue, "response", `${id("q1")}.json`)));
  assert.equal(raw.object, "chat.completion");
  assert.equal(raw.choices[0].message.tool_calls[0].function.name, "weather");
});

Deno.test("relay: option on any backend: the worker sends the request with its key, tools run on the client", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "query");
  const env = await workerHome(dir.path, srv);
  srv.script(
    {
      toolCalls: [{ name: "weather", arguments: { city: "Oslo" }, id: "call_1" }],
      usage: { pt: 9, ct: 3 },
    },
    { text: "Rain in Oslo.", usage: { pt: 20, ct: 4 } },
  );
  const ran: unknown[] = [];
  const tools = toolRegistry({
    weather: [
      (_n, a) => {
        ran.push(a);
        return "rain";
      },
      {
        name: "weather",
        description: "weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    ],
  });
  let done = false;
  const worker = (async () => {
    while (!done) {
      await runMain(["llm", "process_queries", "--once", queue], { env, cwd: dir.path });
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const r = await ask([{ role: "user", content: "Weather in Oslo?" }], {
    max_tool_rounds: 3,
    backend: "openai",
    model: "client-model",
    relay: queue,
    tools,
    persist: false,
    env: { SCOUT_HOME: join(dir.path, "client-home") },
    config: { entries: [] },
    session: newSession(),
  });
  done = true;
  await worker;
  assert.equal(r.text, "Rain in Oslo.");
  assert.deepEqual(ran, [{ city: "Oslo" }]);
  assert.equal(srv.requests.length, 2);
  // the worker's key, the client's model and tool definition
  assert.equal(srv.requests[0]!.headers.authorization, "Bearer sk-worker-only");
  assert.equal(srv.requests[0]!.body.model, "client-model");
  assert.equal((srv.requests[0]!.body.tools as unknown[]).length, 1);
  // the usage of each round is recorded on the client, from the raw responses
  assert.deepEqual(r.messages.filter((m) => m.role === "meta").length, 2);
});
