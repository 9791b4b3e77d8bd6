/**
 * A start chat's `socialize:` value (agents.md §3.1, §2.3): `true TRUE True
 * T 1` offer the `ask` tool; `false F 0` leave it off without a word; any
 * other value (`yes`, `on`) leaves it off too, as in Ruby, but is told once
 * with its file and line instead of being dropped silently. Real agent
 * directories and the loopback provider.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chat, current } from "../../src/agent/agent.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";

/** The tool names of the request an agent whose start chat says `socialize: value` sends. */
async function offered(dir: string, value: string) {
  clearAgentCache();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const name = `S${value.replace(/\W/g, "")}`;
  const agentDir = join(dir, "home", "Agent", name);
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, "start_chat"),
    `system:\n\nYou are ${name}\n\nsocialize: ${value}\n`,
  );
  mkdirSync(join(agentDir, "..", "Other"), { recursive: true });
  writeFileSync(join(agentDir, "..", "Other", "start_chat"), "system:\n\nanother agent\n");
  const warnings: string[] = [];
  const env = { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x" };
  const agent = await loadAgent(name, { cwd: dir, env, warn: (m) => warnings.push(m) });
  agent.options = { ...agent.options, backend: "openai", url: srv.url, model: "m" };
  current(agent).push({ role: "user", content: "hi" });
  await chat(agent, { cache: false });
  current(agent).push({ role: "user", content: "again" });
  await chat(agent, { cache: false });
  const tools = (srv.requests[0]!.body.tools ?? []) as { function?: { name: string } }[];
  return {
    tools: tools.map((t) => t.function?.name),
    warnings,
    file: join(agentDir, "start_chat"),
  };
}

Deno.test("socialize: true words offer the ask tool without a warning; false words leave it off without one", async () => {
  await using t = await tempDir();
  for (const value of ["true", "T", "1"]) {
    const r = await offered(join(t.path, value), value);
    assert.deepEqual(r.tools, ["ask"], value);
    assert.deepEqual(r.warnings, [], value);
  }
  for (const value of ["false", "F", "0"]) {
    const r = await offered(join(t.path, value), value);
    assert.deepEqual(r.tools, [], value);
    assert.deepEqual(r.warnings, [], value);
  }
});

Deno.test("socialize: yes leaves the ask tool off, as in Ruby, and says so once with its line", async () => {
  await using t = await tempDir();
  for (const value of ["yes", "on"]) {
    const r = await offered(join(t.path, value), value);
    assert.deepEqual(r.tools, [], value);
    assert.deepEqual(r.warnings, [
      `"socialize: ${value}" is not true (true, TRUE, True, T or 1): it does not give this ` +
      `agent the ask tool (${r.file}:5)`,
    ]);
  }
});
