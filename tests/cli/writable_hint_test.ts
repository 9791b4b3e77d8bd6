/**
 * R166-4: a failure to write under `SCOUT_HOME` (or `~/.scout`) says to set
 * `SCOUT_HOME`, one to make scout-ai's temporary directory names `TMPDIR`,
 * and `config set` on a read-only store names the config it changes, not
 * only its lock. Real subprocesses as another user (`nobody` when the tests
 * run as root), for whom `/` and a root-owned mode-555 store are read-only.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { runAsNobody } from "../support/nobody.ts";

const HINT = " — set SCOUT_HOME to a writable directory\n";

Deno.test("HOME=/ without SCOUT_HOME: workflow task and config set say to set SCOUT_HOME", async () => {
  await using dir = await tempDir();
  chmodSync(dir.path, 0o755);
  const baking = join(ROOT, "fixtures/workflows/Baking");
  const task = await runAsNobody(["workflow", "task", baking, "cake", "--eggs", "3"], dir.path, {
    HOME: "/",
  });
  assert.equal(task.code, 1);
  // the job's lock is what the home refuses first; its message says what to set, once
  assert.match(
    task.stderr,
    /^scout-ai: Cannot lock the job "\/\.scout\/var\/jobs\/[^"]*": SCOUT_HOME's "\/\.scout\/tmp\/persist_locks" refuses it \(permission denied\)/,
  );
  assert.ok(task.stderr.endsWith("; set SCOUT_HOME to a writable directory\n"), task.stderr);
  assert.equal(task.stderr.split("set SCOUT_HOME").length, 2, task.stderr);
  const set = await runAsNobody(["config", "set", "model", "y", "ask"], dir.path, { HOME: "/" });
  assert.equal(set.code, 1);
  assert.equal(
    set.stderr,
    `scout-ai: Cannot create directory "/.scout/etc": permission denied${HINT}`,
  );
});

Deno.test("config set on a read-only store names the config, then its lock, and says to set SCOUT_HOME", async () => {
  await using dir = await tempDir();
  chmodSync(dir.path, 0o755);
  const store = join(dir.path, "ro");
  mkdirSync(join(store, "etc"), { recursive: true });
  chmodSync(join(store, "etc"), 0o555);
  chmodSync(store, 0o555);
  const r = await runAsNobody(["config", "set", "model", "y", "ask"], dir.path, {
    SCOUT_HOME: store,
  });
  chmodSync(join(store, "etc"), 0o755);
  assert.equal(r.code, 1);
  const config = join(store, "etc", "config");
  assert.equal(
    r.stderr,
    `scout-ai: Cannot change "${config}": permission denied (taking its lock "${config}.lock")` +
      HINT,
  );
});

Deno.test("a TMPDIR that is not there: llm prov --plot names TMPDIR", async () => {
  await using dir = await tempDir();
  const r = await runScout(
    ["llm", "prov", "fixtures/provenance/society/plan.chat", "--plot", join(dir.path, "p.svg")],
    { env: { SCOUT_HOME: join(dir.path, "home"), TMPDIR: "/nonexistent-r166" } },
  );
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    'scout-ai: Cannot create a temporary directory in "/nonexistent-r166/scout-dot-XXXXXX": ' +
      "no such file or directory — set TMPDIR to a writable directory\n",
  );
});
