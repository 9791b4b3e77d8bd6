/**
 * Defect R41-2 through the library: a bad `tool:`, `introduce:` or
 * `endpoint:` line of an agent's `start_chat` fails at ask time with the
 * start chat's file and line — also on a clone (its start chat deep-copied)
 * and after `liftStartOptions` (which `loadAgent` applies) — while the same
 * lines written in code name no file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask, createAgent, liftStartOptions } from "../../src/agent/agent.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { cloneAgent } from "../../src/agent/socialize.ts";
import { isScoutError } from "../../src/errors.ts";
import { tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

const BAD = [
  { line: "tool: NoSuchWorkflow", code: "workflow_not_found" },
  { line: "introduce: NoSuchWorkflow", code: "workflow_not_found" },
  { line: "endpoint: missing", code: "endpoint_not_found" },
];

async function located(
  p: Promise<unknown>,
  code: string,
  file: string | undefined,
  line: number | undefined,
) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isScoutError(e, code as never), String(e));
    assert.equal(e.file, file, e.message);
    assert.equal(e.line, line, e.message);
    return true;
  });
}

Deno.test("loadAgent + ask: a bad start chat line names start_chat and its line (also on a clone, and lifted)", async () => {
  await using t = await tempDir();
  const env = { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x" };
  const file = join(t.path, "Agent", "Foo", "start_chat");
  for (const bad of BAD) {
    put(t.path, "Agent/Foo/start_chat", `system: You help\n\nuser: hi\n\n${bad.line}\n`);
    clearAgentCache();
    const agent = await loadAgent("Foo", { cwd: t.path, env });
    const q = { role: "user", content: "question" };
    await located(ask(agent, [...agent.startChat, q]), bad.code, file, 5);
    const clone = cloneAgent(agent);
    await located(ask(clone, [...clone.startChat, q]), bad.code, file, 5);
    // a second load copies the cached definition's start chat
    const again = await loadAgent("Foo", { cwd: t.path, env });
    liftStartOptions(again, {});
    await located(ask(again, [...again.startChat, q]), bad.code, file, 5);
    // the same line written in code names no file (an agent whose start chat has no such line:
    // loadAgent made a lifted `endpoint:` line its option, which the start chat's line names)
    const [role, content] = bad.line.split(": ") as [string, string];
    const bare = createAgent({ runtime: { cwd: t.path, env } });
    await located(ask(bare, [{ role, content }, q]), bad.code, undefined, undefined);
  }
});
