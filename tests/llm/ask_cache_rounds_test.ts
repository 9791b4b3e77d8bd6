/**
 * The inference cache, round by round: one entry per round of the tool loop
 * (the reply, its meta, the tool outputs' timestamps); a hit re-runs the
 * tools and restamps their outputs; entries of the earlier whole-ask format
 * still replay; a corrupt entry is a clean miss.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { cacheDir } from "../../src/llm/cache.ts";
import type { ToolsInput } from "../../src/tools/registry.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const env = (home: string) => ({ SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" });

async function entries(home: string): Promise<Record<string, unknown>[]> {
  const dir = cacheDir(home);
  const out: Record<string, unknown>[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.name.endsWith(".json")) out.push(JSON.parse(await Deno.readTextFile(join(dir, e.name))));
  }
  return out.sort((a, b) => Number(a.round) - Number(b.round));
}

Deno.test("a tool-loop ask is cached per round; a hit re-runs the tool and keeps the recorded timestamps", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script(
    // a response id that reads as a number: the meta the next round keys on is the written one
    { toolCalls: [{ name: "stock", id: "call_1", arguments: { item: "eggs" } }], id: "1001" },
    { text: "Four eggs.", id: "1002" },
  );
  let runs = 0;
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const definition = {
    name: "stock",
    parameters: { type: "object", properties: { item: { type: "string" } } },
  };
  const tools: ToolsInput = {
    stock: [(_n, a) => {
      runs++;
      return `${a.item}: 4`;
    }, definition],
  };
  const o = {
    backend: "openai",
    url: srv.url,
    model: "m",
    env: env(home.path),
    tools,
    now: () => new Date(clock += 1000),
  };
  const q = [{ role: "user", content: "How many eggs?" }];
  const first = await ask(q, o);
  assert.equal(first.cached, false);
  const stored = await entries(home.path);
  assert.deepEqual(stored.map((e) => [e.v, e.round]), [[2, 1], [2, 2]]);
  assert.equal((stored[0]!.stamps as unknown[]).length, 1);
  assert.equal(runs, 1);
  clock += 3_600_000; // a later clock: the replay must not use it for the envelopes
  const events: string[] = [];
  const second = await ask(q, {
    ...o,
    onEvent: (e) => e.type === "cache" && events.push(String(e.hit)),
  });
  assert.equal(srv.requests.length, 2); // no new request
  assert.equal(runs, 2); // the tool ran again
  assert.equal(second.cached, true);
  assert.deepEqual(events, ["true", "true"]);
  assert.deepEqual(second.messages, first.messages); // metas, outputs and their timestamps
  // a tool whose output changed makes the next round a different request: a miss
  srv.script({ text: "Five eggs." });
  const changed: ToolsInput = { stock: [() => "eggs: 5", definition] };
  const third = await ask(q, { ...o, tools: changed });
  assert.equal(third.text, "Five eggs.");
  assert.equal(third.cached, false);
  assert.equal(srv.requests.length, 3);
});

Deno.test("an entry of the earlier whole-ask format still replays (offline, no request)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  // written by the format-1 code (commit 0e72c70) for exactly this ask
  const key = "af8eaaf978e9023b4114961816d15a8036c775a4225e36837f659cb6c9962942";
  const messages = [
    {
      role: "meta",
      content:
        "pt=10 ct=5 tt=15 pt_s=10 ct_s=5 tt_s=15 pt_c=10 ct_c=5 tt_c=15 cct_c=0 cwt_c=0 rt_c=0 provider_response_id=resp_old timestamp=2026-12-03T06:59:17.133Z inference_id=8e083df0-3c42-4490-a3ad-2fa2c7240d9d",
    },
    { role: "assistant", content: "Old answer." },
  ];
  await Deno.mkdir(cacheDir(home.path), { recursive: true });
  await Deno.writeTextFile(
    join(cacheDir(home.path), `${key}.json`),
    JSON.stringify({
      v: 1,
      created: "2026-12-03T06:59:17.134Z",
      endpoint: "",
      backend: "openai",
      model: "legacy-model",
      messages,
    }),
  );
  const r = await ask([{ role: "user", content: "What did the old cache store?" }], {
    backend: "openai",
    url: srv.url,
    model: "legacy-model",
    env: env(home.path),
    offline: true,
  });
  assert.equal(r.text, "Old answer.");
  assert.equal(r.cached, true);
  assert.deepEqual(r.messages, messages);
  assert.equal(srv.requests.length, 0);
});

Deno.test("a corrupt round entry is a clean miss: a warning, then the provider (or not_cached offline)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "fresh" }, { text: "again" });
  const o = { backend: "openai", url: srv.url, model: "m", env: env(home.path) };
  const q = [{ role: "user", content: "hi" }];
  const keys: string[] = [];
  await ask(q, { ...o, onEvent: (e) => e.type === "cache" && keys.push(e.key) });
  await Deno.writeTextFile(join(cacheDir(home.path), `${keys[0]}.json`), '{"v":2,"items":"no"}');
  const warnings: string[] = [];
  await assert.rejects(
    ask(q, { ...o, offline: true, warn: (m) => warnings.push(m) }),
    (e: Error & { code?: string }) => e.code === "not_cached" && e.message.includes(keys[0]!),
  );
  assert.match(warnings.join("\n"), /Ignoring corrupt cache entry/);
  const r = await ask(q, { ...o, warn: () => {} });
  assert.equal(r.text, "again");
  assert.equal(srv.requests.length, 2);
});

Deno.test("a replayed round streams its text as the recorded run did", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: ["Hel", "lo"] });
  const o = { backend: "openai", url: srv.url, model: "m", env: env(home.path), stream: true };
  const q = [{ role: "user", content: "greet" }];
  const seen = async (opts: typeof o & { offline?: boolean }) => {
    const events: string[] = [];
    await ask(q, {
      ...opts,
      onEvent: (e) => {
        if (e.type === "text") events.push(e.delta);
        if (e.type === "response") events.push(`<response ${e.streamed}>`);
      },
    });
    return events;
  };
  const live = await seen(o);
  assert.deepEqual(live, ["Hel", "lo", "<response true>"]);
  const replayed = await seen({ ...o, offline: true });
  assert.deepEqual(replayed, ["Hello", "<response true>"]);
  assert.equal(replayed.slice(0, -1).join(""), live.slice(0, -1).join(""));
  assert.equal(srv.requests.length, 1);
});

Deno.test("cache directory removed while the process runs: the next miss makes it again", async () => {
  const { withCacheLock } = await import("../../src/llm/cache.ts");
  const dir = await Deno.makeTempDir();
  try {
    const cache = `${dir}/var/cache/ask`;
    assert.equal(await withCacheLock(cache, "k1", () => Promise.resolve(1)), 1);
    await Deno.remove(`${dir}/var`, { recursive: true });
    assert.equal(await withCacheLock(cache, "k2", () => Promise.resolve(2)), 2);
    // locks released; the holder file (the locks' link target) made again with the directory
    assert.deepEqual([...Deno.readDirSync(cache)].map((e) => e.name), [".holders"]);
    assert.equal(
      Deno.readTextFileSync(`${cache}/.holders/${Deno.pid}@${Deno.hostname()}`).length > 0,
      true,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cached is false when a tool's nested ask queried the provider, though every round replayed (R143-3)", async () => {
  await using home = await tempDir();
  await using srv = await startProviderServer({
    fallback: (r) => {
      const msgs = r.body.messages as { role: string; content: string }[];
      if (msgs[0]!.content === "nested") return { text: "nested answer" };
      if (msgs.at(-1)!.role === "tool") return { text: "done" };
      return { toolCalls: [{ name: "consult", id: "call_1", arguments: {} }] };
    },
  });
  const base = { backend: "openai", url: srv.url, model: "m", env: env(home.path) };
  const definition = { name: "consult", parameters: { type: "object", properties: {} } };
  const tools: ToolsInput = {
    consult: [async () => {
      // an ask of its own that never uses the cache; its output is the same every run
      await ask([{ role: "user", content: "nested" }], { ...base, cache: false });
      return "consulted";
    }, definition],
  };
  const q = [{ role: "user", content: "Consult" }];
  const first = await ask(q, { ...base, tools });
  assert.deepEqual([first.text, first.cached, srv.requests.length], ["done", false, 3]);
  const second = await ask(q, { ...base, tools });
  // both rounds replayed, the nested ask asked again: a provider request was made
  assert.deepEqual([second.text, second.cached, srv.requests.length], ["done", false, 4]);
  // the nested ask replayed too (cached itself): nothing asked, cached
  const cachedNested: ToolsInput = {
    consult: [async () => {
      await ask([{ role: "user", content: "nested" }], base);
      return "consulted";
    }, definition],
  };
  await ask(q, { ...base, tools: cachedNested });
  const fourth = await ask(q, { ...base, tools: cachedNested });
  assert.deepEqual([fourth.cached, srv.requests.length], [true, 5]);
});
