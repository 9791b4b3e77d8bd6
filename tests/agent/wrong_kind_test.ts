/**
 * Agent files of the wrong kind (R142-5, `agents.md` §2.3 "never fail
 * silently"): a `start_chat`, `workflow.ts` or `agent.ts` that is a
 * directory, or a link to nothing, is an error naming it — the agent ran
 * without its start chat or its tools — and `agent list` marks such an agent
 * with that error. A file that is simply absent stays absent.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { findAgent, listAgents } from "../../src/agent/find.ts";
import { tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

const WORKFLOW =
  `export default { tasks: { knead: { type: "string", inputs: {}, run: () => "k" } } };\n`;

/** An error `io` whose message and file name `path`. */
function naming(path: string, what: RegExp) {
  return (e: Error & { code?: string; file?: string }) => {
    assert.equal(e.code, "io", e.message);
    assert.equal(e.file, path);
    assert.match(e.message, what);
    assert.ok(e.message.includes(`"${path}"`), e.message);
    return true;
  };
}

Deno.test("agent files that are directories or links to nothing are errors naming them (R142-5)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const home = join(t.path, "home");
  const opts = { cwd: join(t.path, "w"), env: { SCOUT_HOME: home }, warn: () => {} };
  mkdirSync(opts.cwd, { recursive: true });
  const agent = (name: string) => join(home, "Agent", name);
  // start_chat a directory: before, the agent ran with no start chat
  put(home, "Agent/ChatDir/workflow.ts", WORKFLOW);
  mkdirSync(join(agent("ChatDir"), "start_chat"));
  // agent.ts a directory: before, the agent ran without what its script adds
  put(home, "Agent/ScriptDir/start_chat", "system: hi\n");
  mkdirSync(join(agent("ScriptDir"), "agent.ts"));
  // workflow.ts a directory: before, no tools, and `agent list` listed it as fine
  put(home, "Agent/FlowDir/start_chat", "system: hi\n");
  mkdirSync(join(agent("FlowDir"), "workflow.ts"));
  // start_chat a link to nothing
  put(home, "Agent/ChatLink/workflow.ts", WORKFLOW);
  symlinkSync(join(t.path, "gone"), join(agent("ChatLink"), "start_chat"));
  // a sound agent beside them, without a start_chat: absent is absent
  put(home, "Agent/Fine/workflow.ts", WORKFLOW);

  const isDir = /^Is a directory, not a file: /;
  await assert.rejects(
    () => loadAgent("ChatDir", opts),
    naming(join(agent("ChatDir"), "start_chat"), isDir),
  );
  await assert.rejects(
    () => loadAgent("ScriptDir", opts),
    naming(join(agent("ScriptDir"), "agent.ts"), isDir),
  );
  await assert.rejects(
    () => loadAgent("FlowDir", opts),
    naming(join(agent("FlowDir"), "workflow.ts"), isDir),
  );
  await assert.rejects(
    () => loadAgent("ChatLink", opts),
    naming(join(agent("ChatLink"), "start_chat"), /^Dangling symbolic link: .*\(to ".*gone"\)$/),
  );
  const fine = await loadAgent("Fine", opts);
  assert.deepEqual(fine.startChat, [{ role: "introduce", content: "Fine" }]);

  const listed = Object.fromEntries(listAgents(opts).map((a) => [a.name, a.error ?? null]));
  assert.deepEqual(listed, {
    ChatDir: `Is a directory, not a file: "${join(agent("ChatDir"), "start_chat")}"`,
    ChatLink: `Dangling symbolic link: "${join(agent("ChatLink"), "start_chat")}" (to "${
      join(t.path, "gone")
    }")`,
    Fine: null,
    FlowDir: `Is a directory, not a file: "${join(agent("FlowDir"), "workflow.ts")}"`,
    ScriptDir: `Is a directory, not a file: "${join(agent("ScriptDir"), "agent.ts")}"`,
  });
});

Deno.test("an agent directory that is a link to nothing is an error, not another root's agent (R142-5)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  const w = join(t.path, "w");
  const opts = { cwd: w, env: { SCOUT_HOME: home } };
  put(home, "Agent/Planner/start_chat", "system: home\n");
  mkdirSync(join(w, "Agent"), { recursive: true });
  const link = join(w, "Agent", "Planner");
  symlinkSync(join(t.path, "gone"), link);
  assert.throws(() => findAgent("Planner", opts), naming(link, /^Dangling symbolic link: /));
});
