/**
 * Agent lookup when a directory cannot be read (R72-3, `agents.md` §2.3
 * "never fail silently"): an agent directory this user may not look in, or a
 * kind directory (`Agent/`) that hides which agent comes first, is an error
 * naming it — not "no agent files" (the agent ran with no start chat: no
 * system prompt, no `endpoint:`) nor "not there" (another root's agent ran).
 * `agent list` shows such a name, marked, and warns of what it cannot list.
 * Run as `nobody` (root reads anything); the symbolic-link-loop cases, which
 * fail for root too, are in `tests/cli/agent_cli_test.ts`.
 */
import assert from "node:assert/strict";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { openDir, runUnprivileged, tmp } from "../provenance/support.ts";
import { put } from "../support/files.ts";

interface Outcome {
  ok?: unknown;
  code?: string;
  message?: string;
  file?: string;
}

interface Report {
  locked: Outcome;
  lockedPath: Outcome;
  open: Outcome;
  shadowed: Outcome;
  list: [string, string, string | null][];
  shadowList: [string, string, string | null][];
  warnings: string[];
}

/** What findAgent and listAgents say, as nobody, in `w` (Agent/Locked 000) and `s` (Agent/ 000). */
function probe(w: string, s: string, home: string): string {
  return `import { findAgent, listAgents } from "file://$ROOT/src/agent/find.ts";
const env = { SCOUT_HOME: ${JSON.stringify(home)} };
const attempt = (f) => {
  try { return { ok: f() }; } catch (e) { return { code: e.code, message: e.message, file: e.file }; }
};
const warnings = [];
const list = (cwd) => listAgents({ cwd, env, warn: (m) => warnings.push(m) })
  .map((a) => [a.name, a.path, a.error ?? null]);
const w = ${JSON.stringify(w)}, s = ${JSON.stringify(s)};
console.log(JSON.stringify({
  locked: attempt(() => findAgent("Locked", { cwd: w, env }).path),
  lockedPath: attempt(() => findAgent("./Agent/Locked", { cwd: w, env }).path),
  open: attempt(() => findAgent("Open", { cwd: w, env }).path),
  shadowed: attempt(() => findAgent("Home", { cwd: s, env }).path),
  list: list(w),
  shadowList: list(s),
  warnings,
}));`;
}

Deno.test("R72-3 an agent directory nobody may read is an error naming it, not an empty agent or another root's", async () => {
  await using t = await tmp();
  openDir(t.path);
  const w = join(t.path, "w");
  const s = join(t.path, "s");
  const home = join(t.path, "home");
  put(w, "Agent/Locked/start_chat", "system: locked\n\nendpoint: private\n");
  put(w, "Agent/Open/start_chat", "system: open\n");
  put(home, "Agent/Home/start_chat", "system: home\n");
  put(s, "Agent/Home/start_chat", "system: meant\n");
  const locked = join(w, "Agent", "Locked");
  const kindDir = join(s, "Agent");
  chmodSync(locked, 0o000);
  chmodSync(kindDir, 0o000);
  try {
    const r = await runUnprivileged(t.path, probe(w, s, home)) as Report;
    const denied = (path: string) => ({
      code: "io",
      message: `Permission denied: "${path}"`,
      file: path,
    });
    // before: found, then loaded as "holds no agent files" (no start chat, default endpoint)
    assert.deepEqual(r.locked, denied(locked));
    assert.deepEqual(r.lockedPath, denied(locked));
    assert.deepEqual(r.open, { ok: join(w, "Agent", "Open") });
    // before: $SCOUT_HOME/Agent/Home, silently, as if ./Agent/Home did not exist
    assert.deepEqual(r.shadowed, denied(join(kindDir, "Home")));
    // before: Locked left out of the list without a word
    assert.deepEqual(r.list, [
      ["Home", join(home, "Agent", "Home"), null],
      ["Locked", locked, `Permission denied: "${locked}"`],
      ["Open", join(w, "Agent", "Open"), null],
    ]);
    // the name seen in $SCOUT_HOME, marked: find fails on the ./Agent it cannot search
    assert.deepEqual(r.shadowList, [
      ["Home", join(home, "Agent", "Home"), `Permission denied: "${join(kindDir, "Home")}"`],
    ]);
    assert.deepEqual(r.warnings, [`Agents in "${kindDir}" are not listed: permission denied`]);
  } finally {
    chmodSync(locked, 0o755);
    chmodSync(kindDir, 0o755);
  }
});
