/**
 * A library caller's `warn` hears of a nested ask's retries and failure
 * (R106-2): the specialist's ask has no printer of its own, and its caller's
 * model gets its error without the snapshot or the url.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentChat, clearAgentCache, loadAgent } from "../../src/agent/mod.ts";
import { current } from "../../src/agent/agent.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

Deno.test("R106-2: a specialist's retries and failure go to the runtime's warn, naming it and its caller", async () => {
  await using t = await tempDir();
  put(t.path, "Agent/Boss/start_chat", "system:\n\nYou are Boss\n\nsocialize: true\n");
  put(t.path, "Agent/Worker/start_chat", "system:\n\nYou are Worker\n");
  await using srv = await startProviderServer({
    fallback: (r) => {
      const messages = r.body.messages as { role: string; content: string }[];
      if (messages[0]!.content === "You are Worker") {
        return { status: 503, retryAfter: 0, message: "worker's GPU is down" };
      }
      if (messages.at(-1)!.role === "tool") return { text: "boss done" };
      const args = { agent: "Worker", prompt: "w" };
      return { toolCalls: [{ name: "ask", id: "c1", arguments: args }] };
    },
  });
  clearAgentCache();
  const warnings: string[] = [];
  const boss = await loadAgent("Boss", {
    options: { backend: "openai", url: srv.url, model: "m", persist: false },
    runtime: {
      env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "k" },
      cwd: t.path,
      warn: (m) => warnings.push(m),
    },
  });
  current(boss).push({ role: "user", content: "go" });
  const r = await agentChat(boss);
  assert.equal(r.text, "boss done");
  const who = "agent Worker (conversation _oneshot-1, asked by Boss)";
  assert.deepEqual(
    warnings.map((w) => w.replace(/: Provider .*; retrying in 0\.0 s/, ": … retrying")),
    [
      `${who}: … retrying (attempt 2)`,
      `${who}: … retrying (attempt 3)`,
      `${who}: … retrying (attempt 4)`,
      warnings[3]!,
    ],
  );
  assert.ok(warnings[3]!.startsWith(`${who} failed: `), warnings[3]);
  assert.match(warnings[3]!, /worker's GPU is down/);
  const snapshot = /\(snapshot: (\S+)\.chat\)$/.exec(warnings[3]!)?.[1];
  assert.ok(snapshot, warnings[3]);
  const options = JSON.parse(readFileSync(`${snapshot}.options.json`, "utf8"));
  assert.deepEqual(options.asked_by, {
    agent: "Worker",
    conversation: "_oneshot-1",
    caller: "Boss",
  });
  // the Boss's model got the error without the notes for the user
  const out = r.messages.find((m) => m.role === "function_call_output")!;
  assert.match(String(out.content), /worker's GPU is down/);
  assert.doesNotMatch(String(out.content), /snapshot/);
});
