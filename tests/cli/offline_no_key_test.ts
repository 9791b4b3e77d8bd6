/**
 * An offline replay needs no API key (R152-2): nothing is sent, and the key
 * is no part of the cache key. A run recorded against the loopback provider
 * with a key replays — `llm ask -o` and `agent ask -o` — from an endpoint
 * file naming neither key nor url, with no key in the environment; a miss
 * fails as the offline miss it is (`not_cached`, naming the digest), never as
 * a missing key. Online, a missing key is still an error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const ENDPOINT = (extra: string) => `backend: openai\nmodel: echo-m\n${extra}`;

Deno.test("offline with no key: a recorded ask replays byte-identically; a miss is not_cached", async () => {
  await using dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: "recorded answer" }) });
  const home = join(dir.path, "home");
  const endpoint = join(home, "etc", "AI", "loop.yaml");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.mkdir(join(dir.path, "Agent", "Baker"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "Agent", "Baker", "start_chat"), "system: Bake\n");
  await Deno.writeTextFile(endpoint, ENDPOINT(`url: ${srv.url}\n`));
  const start = "user:\n\nfirst\n";
  const chat = (name: string) => join(dir.path, name);
  const run = (args: string[], env: Record<string, string>) =>
    runMain(args, { env: { SCOUT_HOME: home, ...env }, cwd: dir.path });
  const llm = (name: string, q: string, env: Record<string, string>) =>
    run(["llm", "ask", "-e", "loop", "-c", name, "-o", name, q], env);
  const agent = (name: string, q: string, env: Record<string, string>) =>
    run(["agent", "ask", "Baker", "-e", "loop", "-c", name, "-o", name, q], env);
  for (const name of ["rec.chat", "rep.chat", "miss.chat", "arec.chat", "arep.chat"]) {
    await Deno.writeTextFile(chat(name), start);
  }
  const rec = await llm("rec.chat", "third", { OPENAI_API_KEY: "sk-recording" });
  assert.equal(rec.code, 0, rec.stderr);
  const arec = await agent("arec.chat", "third", { OPENAI_API_KEY: "sk-recording" });
  assert.equal(arec.code, 0, arec.stderr);
  await srv.close();
  // the replay's endpoint names neither key nor url; no key in the environment
  await Deno.writeTextFile(endpoint, ENDPOINT(""));
  const offline = { SCOUT_OFFLINE: "1" };
  const rep = await llm("rep.chat", "third", offline);
  assert.equal(rep.code, 0, rep.stderr);
  assert.equal(rep.stdout, rec.stdout);
  assert.equal(
    await Deno.readTextFile(chat("rep.chat")),
    await Deno.readTextFile(chat("rec.chat")),
  );
  const arep = await agent("arep.chat", "third", offline);
  assert.equal(arep.code, 0, arep.stderr);
  assert.equal(
    await Deno.readTextFile(chat("arep.chat")),
    await Deno.readTextFile(chat("arec.chat")),
  );
  // a miss is the offline miss it is
  for (
    const r of [await llm("miss.chat", "fourth", offline), await agent("miss.chat", "x", offline)]
  ) {
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Offline: no cached answer for endpoint "loop" .*digest [0-9a-f]{64}/);
    assert.doesNotMatch(r.stderr, /API key/);
  }
  // online, a missing key is still an error
  const online = await run(["llm", "ask", "-e", "loop", "fifth"], {});
  assert.equal(online.code, 1);
  assert.match(online.stderr, /No API key for backend "openai": set OPENAI_KEY or OPENAI_API_KEY/);
});
