/**
 * An `agent:` line hands the ask to an agent with the ask's runtime (R116):
 * `persist: false` (an option or a chat line) and `cache: false` keep the
 * agent's inference out of the cache; the ask's signal stops it (the request
 * in flight cancelled); its env, cwd, warn and offline decide where the agent
 * is found and how it runs, over the hook's creation-time base.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../../src/chat/types.ts";
import { agentDelegate, clearAgentCache } from "../../src/agent/load.ts";
import { ask, type AskOptions } from "../../src/llm/ask.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

/** The inference cache entries (`<key>.json`) under a SCOUT_HOME. */
function cacheEntries(home: string): string[] {
  const dir = join(home, "var", "cache", "ask");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
}

const helperChat = (who: string) => `system: I am ${who}\n\nbackend: openai\n`;

const question = (...lines: Message[]): Message[] => [
  ...lines,
  { role: "agent", content: "Helper" },
  { role: "user", content: "help" },
];

/** The system prompt of each request the server got. */
function systems(srv: { requests: { body: Record<string, unknown> }[] }): string[] {
  return srv.requests.map((r) =>
    String((r.body.messages as { role: string; content: string }[])[0]!.content)
  );
}

Deno.test("persist: false (option, chat line) and cache: false reach the agent: nothing cached, nothing replayed", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "helped" }) });
  const w = join(t.path, "w");
  put(w, "Agent/Helper/start_chat", helperChat("the helper"));
  clearAgentCache();
  const cases: [string, Message[], AskOptions][] = [
    ["the option", [], { persist: false }],
    ["a chat line", [{ role: "persist", content: "FALSE" }], {}],
    ["cache: false", [], { cache: false }],
  ];
  for (const [label, lines, extra] of cases) {
    const home = join(t.path, `home-${label.replace(/\W/g, "")}`);
    const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
    const opts: AskOptions = { env, cwd: w, url: srv.url, model: "m", ...extra };
    const before = srv.requests.length;
    // the base finds the agent as the ask would: only the cache is in question here
    const delegate = agentDelegate({ cwd: w, env });
    const r1 = await ask(question(...lines), { ...opts, delegate });
    const r2 = await ask(question(...lines), { ...opts, delegate });
    assert.equal(r1.text, "helped", label);
    assert.equal(r2.cached, false, `${label}: not replayed`);
    assert.equal(srv.requests.length - before, 2, `${label}: asked twice`);
    assert.deepEqual(cacheEntries(home), [], `${label}: no cache entry`);
  }
  // the same asks without them are cached, and replayed: what the checks above can tell
  const home = join(t.path, "home-cached");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  const opts: AskOptions = {
    env,
    cwd: w,
    url: srv.url,
    model: "m",
    delegate: agentDelegate({ cwd: w, env }),
  };
  await ask(question(), opts);
  assert.equal((await ask(question(), opts)).cached, true);
  assert.equal(cacheEntries(home).length, 1);
});

Deno.test("the ask's signal stops the agent: it rejects with AbortError at once, its request cancelled", async () => {
  await using t = await tempDir();
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  await using srv = await startProviderServer({ script: [{ text: "too late", until: held }] });
  const w = join(t.path, "w");
  put(w, "Agent/Helper/start_chat", helperChat("the helper"));
  clearAgentCache();
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  const signals: AbortSignal[] = [];
  const fetching: typeof fetch = (input, init) => {
    if (init?.signal) signals.push(init.signal);
    return fetch(input, init);
  };
  const ac = new AbortController();
  const asked = ask(question(), {
    env,
    cwd: w,
    url: srv.url,
    model: "m",
    cache: false,
    fetch: fetching,
    signal: ac.signal,
    // the base finds the agent as the ask would: only the signal is in question here
    delegate: agentDelegate({ cwd: w, env }),
  }).then(() => "resolved", (e: Error) => e);
  try {
    for (let i = 0; i < 500 && srv.requests.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(srv.requests.length, 1, "the agent's request is in flight");
    ac.abort(new DOMException("Interrupted", "AbortError"));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      asked,
      new Promise((r) => timer = setTimeout(() => r("still running"), 3_000)),
    ]);
    clearTimeout(timer);
    assert.equal((outcome as Error).name, "AbortError", String(outcome));
    // the request went through the ask's fetch, and its signal fired: the request is cancelled
    assert.equal(signals.length, 1, "the ask's fetch made the agent's request");
    assert.equal(signals[0]!.aborted, true);
  } finally {
    release();
    await asked;
  }
});

Deno.test("the ask's env and cwd find the agent, over the hook's base; warn and offline are the ask's", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const key = { OPENAI_API_KEY: "sk-x" };
  const home = join(t.path, "home");
  put(home, "Agent/Helper/start_chat", helperChat("in the home"));
  const w = join(t.path, "w");
  put(w, "Agent/Helper/start_chat", helperChat("in the cwd"));
  const baseDir = join(t.path, "base");
  put(baseDir, "Agent/Helper/start_chat", helperChat("in the base"));
  put(baseDir, "Agent/Helper/agent.rb", "# Ruby only\n");
  const empty = join(t.path, "empty");
  mkdirSync(empty);
  const emptyHome = { SCOUT_HOME: join(t.path, "no-home"), ...key };
  clearAgentCache();
  const common = { url: srv.url, model: "m", cache: false };

  // no base: the ask's env names the home that holds the agent
  await ask(question(), {
    ...common,
    env: { SCOUT_HOME: home, ...key },
    cwd: empty,
    delegate: agentDelegate(),
  });
  // a base elsewhere: the ask's cwd wins over it
  const baseWarnings: string[] = [];
  const base = { cwd: baseDir, env: emptyHome, warn: (m: string) => baseWarnings.push(m) };
  await ask(question(), { ...common, env: emptyHome, cwd: w, delegate: agentDelegate(base) });
  // what the ask does not give, the base does: its cwd; warnings go to the ask's warn
  const askWarnings: string[] = [];
  await ask(question(), {
    ...common,
    env: emptyHome,
    warn: (m) => askWarnings.push(m),
    delegate: agentDelegate(base),
  });
  assert.deepEqual(systems(srv), ["I am in the home", "I am in the cwd", "I am in the base"]);
  assert.equal(askWarnings.filter((m) => m.includes("agent.rb")).length, 1, askWarnings.join("\n"));
  assert.deepEqual(baseWarnings, []);

  // offline: the agent's inference must come from the cache; nothing is asked
  await assert.rejects(
    () =>
      ask(question(), {
        ...common,
        cache: true,
        offline: true,
        env: { SCOUT_HOME: home, ...key },
        cwd: empty,
        delegate: agentDelegate(),
      }),
    (e: Error & { code?: string }) => e.code === "not_cached",
  );
  assert.equal(srv.requests.length, 3);
});
