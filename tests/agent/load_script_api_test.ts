/**
 * The API an `agent.ts` gets (R82-4): its `loadAgent` loads where the agent
 * itself was loaded — the outer load's env, cwd, warnings and runtime hooks
 * — so a library caller's `{env, cwd}` reach the agents its `agent.ts`
 * loads (before, they searched the process's cwd and `$SCOUT_HOME`). What
 * the script passes still wins.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

Deno.test("agent.ts: api.loadAgent searches the outer load's env and cwd and shares its runtime hooks (R82-4)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const home = join(t.path, "home");
  put(home, "Agent/NoRt/start_chat", "system: You are NoRt\n");
  put(
    home,
    "Agent/NoRt/agent.ts",
    `export default async (api, me) => {
  api.delegate(me, await api.loadAgent("Scribe"), "Scribe", "Write it down");
};
`,
  );
  put(home, "Agent/Scribe/start_chat", "system: You are Scribe\n");
  // Local is only under the outer load's cwd
  put(t.path, "work/Agent/Local/start_chat", "system: You are Local\n");
  put(
    home,
    "Agent/Outer/agent.ts",
    `export default async (api, me) => {\n  me.options.local = await api.loadAgent("Local");\n};\n`,
  );
  const warnings: string[] = [];
  const signal = new AbortController().signal;
  const opts = {
    env: { SCOUT_HOME: home },
    cwd: join(t.path, "work"),
    runtime: { offline: true, signal },
    warn: (m: string) => warnings.push(m),
  };
  const a = await loadAgent("NoRt", opts);
  assert.ok("hand_off_to_Scribe" in (a.options.tools as object));
  const o = await loadAgent("Outer", opts);
  const local = o.options.local as typeof o;
  assert.equal(local.path, join(t.path, "work", "Agent", "Local"));
  assert.equal(local.runtime.offline, true);
  assert.equal(local.runtime.signal, signal);
  assert.equal(local.runtime.env, opts.env);
  assert.equal(local.runtime.cwd, opts.cwd);
  assert.notEqual(local.runtime, o.runtime, "a copy, not the outer agent's object");
  // the outer load's warnings: a nested agent directory without files warns there
  mkdirSync(join(home, "Agent", "Empty"), { recursive: true });
  put(
    home,
    "Agent/Warns/agent.ts",
    `export default async (api) => {\n  await api.loadAgent("Empty");\n};\n`,
  );
  await loadAgent("Warns", opts);
  assert.match(warnings.join("\n"), /Agent "Empty" .* holds no agent files/);
});

Deno.test("agent.ts: what the script passes to api.loadAgent wins over the outer load's (R82-4)", async () => {
  await using t = await tempDir();
  clearAgentCache();
  const home = join(t.path, "home");
  const other = join(t.path, "other");
  put(other, "Agent/Elsewhere/start_chat", "system: You are Elsewhere\n");
  put(
    home,
    "Agent/Picky/agent.ts",
    `export default async (api, me) => {
  me.options.found = await api.loadAgent("Elsewhere", { env: { SCOUT_HOME: ${
      JSON.stringify(other)
    } } });
};
`,
  );
  const opts = { env: { SCOUT_HOME: home }, cwd: t.path, warn: () => {} };
  const a = await loadAgent("Picky", opts);
  const found = a.options.found as typeof a;
  assert.equal(found.path, join(other, "Agent", "Elsewhere"));
  assert.deepEqual(found.runtime.env, { SCOUT_HOME: other });
  // without the script's env the outer one is searched: Elsewhere is not there
  put(
    home,
    "Agent/Plain/agent.ts",
    `export default async (api) => { await api.loadAgent("Elsewhere"); };\n`,
  );
  await assert.rejects(() => loadAgent("Plain", opts), /No agent found with name Elsewhere/);
});
