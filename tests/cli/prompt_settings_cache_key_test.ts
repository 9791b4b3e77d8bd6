/**
 * Prompt-strategy settings from the environment or the config store are part
 * of the inference-cache key when they change what is sent (R140-1): a chat
 * run with pruning settings from `EPOCH_*` variables, then with the defaults
 * (the whole history sent), is asked again, not answered from the first
 * run's entry. The same settings given by the config, or by the chat's
 * `option:` lines, key alike; a variable equal to its default keys as none.
 * The real CLI in subprocesses against the loopback provider, counting its
 * requests; the answer says how many messages it was sent.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** A chat with `n` short tool pairs after its question (more than the threshold 4 below). */
function toolChat(n: number, tail = ""): string {
  const pairs = Array.from(
    { length: n },
    (_, i) =>
      `function_call: {"name":"f","arguments":{"q":"a${i}"},"id":"c${i}"}\n\n` +
      `function_call_output: {"id":"c${i}","content":"o${i}"}\n\n`,
  );
  return `system:\n\nsys\n\nuser:\n\ngo\n\n${pairs.join("")}assistant:\n\nthen?\n\n${tail}`;
}

const PRUNING = {
  EPOCH_TOOL_CALL_THRESHOLD: "4",
  EPOCH_FULL_TOOL_CALLS: "1",
  EPOCH_COMPACTED_TOOL_CALLS: "2",
  EPOCH_SIZE: "2",
};

Deno.test("strategy settings from the environment or the config join the cache key; the same per chat line keys alike (R140-1)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => ({ text: `sent ${(req.body.messages as unknown[]).length}` }),
  });
  const home = join(t.path, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  writeFileSync(join(home, "etc/AI/ep.yaml"), `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  writeFileSync(join(t.path, "t.chat"), toolChat(6));
  const base = { SCOUT_HOME: home, HOME: t.path, OPENAI_API_KEY: "sk-x" };
  const scout = (args: string[], env: Record<string, string> = {}) =>
    runScout(args, { env: { ...base, ...env }, cwd: t.path });
  const ask = async (env: Record<string, string> = {}, chat = "t.chat") => {
    const before = srv.requests.length;
    const r = await scout([
      "llm",
      "ask",
      "-e",
      "ep",
      "--no-stream",
      "-c",
      chat,
      "-o",
      "o.chat",
      "next",
    ], env);
    assert.equal(r.code, 0, r.stderr);
    return { text: r.stdout.trim(), requests: srv.requests.length - before };
  };
  // pruned: of 6 pairs over the threshold 4 the oldest is dropped, a notice added (16 - 2 + 1)
  const pruned = await ask(PRUNING);
  assert.deepEqual(pruned, { text: "sent 15", requests: 1 });
  // the defaults send the whole history: another request, not the pruned run's answer
  const whole = await ask();
  assert.deepEqual(whole, { text: "sent 16", requests: 1 });
  // a variable equal to its default changes nothing sent: the defaults' entry
  assert.deepEqual(await ask({ EPOCH_SIZE: "20", MAX_TOOL_CHARS: "100000" }), {
    text: "sent 16",
    requests: 0,
  });
  // the same settings per chat line (after the last reply, where they are in force): the pruned run's entry
  const lines = Object.entries(PRUNING).map(([k, v]) => `option: ${k.toLowerCase()} ${v}\n`);
  writeFileSync(join(t.path, "o.chat"), toolChat(6, lines.join("")));
  assert.deepEqual(await ask({}, "o.chat"), { text: "sent 15", requests: 0 });
  // the same settings in the config store: the pruned run's entry, not the defaults'
  for (const [k, v] of Object.entries(PRUNING)) {
    const set = await scout(["config", "set", k.toLowerCase(), v, "prompt"]);
    assert.equal(set.code, 0, set.stderr);
  }
  assert.deepEqual(await ask(), { text: "sent 15", requests: 0 });
});
