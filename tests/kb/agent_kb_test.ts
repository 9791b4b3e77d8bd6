/**
 * The knowledge base of an agent (`agents.md` §2.2 step 4, §5.2, §6.2): a
 * `kb: NAME` line's fallback, `agent kb NAME` and the loaded agent take the
 * agent `agent find NAME` resolves — the first existing directory in kind
 * order, knowledge base or not — and its `knowledge_base/`, else its
 * workflow directory's. A bad name is refused, never joined into a path.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentKnowledgeBase, resolveKnowledgeBase } from "../../src/kb/resolve.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { isScoutError } from "../../src/errors.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

function setup(base: string) {
  const cwd = join(base, "w");
  const home = join(base, "home");
  const env = { SCOUT_HOME: home, HOME: base, NO_COLOR: "1" };
  const copy = (to: string) => {
    mkdirSync(to, { recursive: true });
    cpSync(FAMILY, to, { recursive: true });
  };
  const agent = (dir: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "start_chat"), "system: kin\n");
  };
  return { cwd, home, env, opts: { cwd, env }, copy, agent };
}

Deno.test("agent knowledge base: kb: NAME, agent kb NAME and the loaded agent agree", async () => {
  await using d = await tempDir();
  const { cwd, env, opts, copy, agent } = setup(d.path);
  // the agent Kin is ./Agent/Kin (the first kind), which has no knowledge_base/;
  // its workflow directory has one, and so has ./var/Agent/Kin, which is not the agent
  agent(join(cwd, "Agent", "Kin"));
  copy(join(cwd, "workflows", "Kin", "knowledge_base"));
  copy(join(cwd, "var", "Agent", "Kin", "knowledge_base"));
  const want = join(cwd, "workflows", "Kin", "knowledge_base");
  assert.equal(agentKnowledgeBase("Kin", opts), want);
  const r = await runMain(["agent", "kb", "Kin", "list", "--json"], { cwd, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).knowledge_base, want);
  clearAgentCache();
  const loaded = await loadAgent("Kin", { ...opts, warn: () => {} });
  assert.equal(loaded.knowledgeBase, want);
});

Deno.test("agent knowledge base: an agent without one does not borrow another root's", async () => {
  await using d = await tempDir();
  const { cwd, home, env, opts, copy, agent } = setup(d.path);
  // ./Agent/Kin is the agent Kin; $SCOUT_HOME/Agent/Kin is shadowed, knowledge base and all
  agent(join(cwd, "Agent", "Kin"));
  copy(join(home, "Agent", "Kin", "knowledge_base"));
  mkdirSync(join(cwd, "var", "knowledge_base", "Kin"), { recursive: true });
  assert.equal(agentKnowledgeBase("Kin", opts), null);
  assert.throws(
    () => resolveKnowledgeBase("Kin", opts),
    (e) => isScoutError(e, "not_found") && !e.message.includes(join(home, "Agent")),
  );
  const r = await runMain(["agent", "kb", "Kin", "list"], { cwd, env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`${join(cwd, "Agent", "Kin", "knowledge_base")}`));
});

Deno.test("agent knowledge base: a bad name is refused, not joined into a path", async () => {
  await using d = await tempDir();
  const { cwd, opts, copy } = setup(d.path);
  // join(root, "Agent", "../x", "knowledge_base") is <root>/x/knowledge_base
  copy(join(cwd, "x", "knowledge_base"));
  copy(join(cwd, "knowledge_base"));
  for (const bad of ["../x", "Kin/../../x", "..", "/abs", "~/x", ""]) {
    assert.throws(
      () => agentKnowledgeBase(bad, opts),
      (e) => isScoutError(e, "invalid_input") && e.message.includes(`"${bad}"`),
      bad,
    );
  }
  // `kb: .` is the path .: no databases there, and no agent fallback to ./Agent/knowledge_base
  copy(join(cwd, "Agent", "knowledge_base"));
  assert.throws(() => resolveKnowledgeBase(".", opts), (e) => isScoutError(e, "not_found"));
});
