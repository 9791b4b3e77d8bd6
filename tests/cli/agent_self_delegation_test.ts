/**
 * An agent that hands its own question, word for word, to a copy of itself
 * (R73-1): the copy's first request is byte for byte its caller's, so it has
 * the caller's round key, whose lock the caller holds while its tools — the
 * copy — run. The nested round gets a key of its own: the run ends, is
 * recorded, and replays offline.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nestedRoundKey } from "../../src/llm/ask_cache.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { clearAgentCache } from "../../src/agent/load.ts";

Deno.test("an agent asking a copy of itself its own question gets an answer, recorded and replayed (R73-1)", async () => {
  clearAgentCache();
  await using dir = await tempDir();
  const srv = await startProviderServer();
  const home = join(dir.path, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}/v1\nmodel: m\nkey: sk-x\n`,
  );
  mkdirSync(join(dir.path, "Agent", "Echo"), { recursive: true });
  writeFileSync(
    join(dir.path, "Agent", "Echo", "start_chat"),
    "system:\n\nYou are Echo.\n\nendpoint: loop\n\nsocialize: true\n",
  );
  srv.script(
    {
      toolCalls: [{
        name: "ask",
        id: "call_e1",
        arguments: { agent: "Echo", prompt: "What is 2+2?" },
      }],
    },
    { text: "inner: 4" },
    { text: "outer: 4" },
  );
  const env = { SCOUT_HOME: home };
  const ask = (extra: string[]) =>
    runMain(["agent", "ask", "Echo", ...extra, "What is 2+2?"], { env, cwd: dir.path });
  const asked = await Promise.race([
    ask([]),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("hung")), 20_000)),
  ]);
  assert.equal(asked.code, 0, asked.stderr);
  assert.equal(asked.stdout, "outer: 4\n");
  assert.equal(srv.requests.length, 3);
  // the copy's request is its caller's, byte for byte
  assert.deepEqual(srv.requests[1]!.body.messages, srv.requests[0]!.body.messages);
  await srv.close();
  clearAgentCache();
  const replayed = await ask(["--offline"]);
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.equal(replayed.stdout, "outer: 4\n");
});

Deno.test("nestedRoundKey: the key itself unless a caller has it; then a derived key no caller has", () => {
  const k = "a".repeat(64);
  assert.equal(nestedRoundKey(k, undefined), k);
  assert.equal(nestedRoundKey(k, new Set(["b"])), k);
  const once = nestedRoundKey(k, new Set([k]));
  assert.match(once, /^[0-9a-f]{64}$/);
  assert.notEqual(once, k);
  assert.equal(nestedRoundKey(k, new Set([k])), once, "the same when replayed");
  const twice = nestedRoundKey(k, new Set([k, once]));
  assert(![k, once].includes(twice));
});
