/**
 * R166-1: with `SCOUT_HOME` set, scout-ai needs no home directory. Run as a
 * uid without a passwd entry and `HOME` unset (Deno's `os.homedir()` gives
 * null there, Bun's throws "Cannot uv_os_homedir"), `workflow task`,
 * `workflow info`, `llm prov` (tree and `--json`) and `agent ask` of a
 * workflow-backed agent work; without `SCOUT_HOME` too, the error says what
 * to set. Needs root and setpriv (the test fails without them).
 */
import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";
import { assertCanRunHomeless, HOMELESS_UID, runHomeless, RUNTIMES } from "../support/homeless.ts";
import { startProviderServer } from "../support/provider_server.ts";

const BAKING = join(ROOT, "fixtures/workflows/Baking");

/** A SCOUT_HOME owned by the homeless uid. */
function ownHome(dir: string, name: string): string {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  Deno.chownSync(home, HOMELESS_UID, HOMELESS_UID);
  return home;
}

for (const runtime of RUNTIMES) {
  Deno.test(`no home, SCOUT_HOME set (${runtime}): workflow task and workflow info work`, async () => {
    assertCanRunHomeless();
    await using dir = await tempDir();
    const env = { SCOUT_HOME: ownHome(dir.path, "own") };
    const task = await runHomeless(
      runtime,
      ["workflow", "task", BAKING, "cake", "--eggs", "3", "--json"],
      dir.path,
      env,
    );
    assert.equal(task.code, 0, task.stderr);
    const { path, result } = JSON.parse(task.stdout);
    assert.equal(result, "Cake (Whisked 3 soft, 0.5 kg flour, 30 min)\n");
    for (const json of [[], ["--json"]]) {
      const info = await runHomeless(runtime, ["workflow", "info", path, ...json], dir.path, env);
      assert.equal(info.code, 0, info.stderr);
      assert.match(info.stdout, /done/);
    }
  });

  Deno.test(`no home, SCOUT_HOME set (${runtime}): agent ask of a workflow-backed agent, llm prov`, async () => {
    assertCanRunHomeless();
    await using dir = await tempDir();
    await using srv = await startProviderServer();
    srv.script({ text: "The oven may be too hot." });
    const home = ownHome(dir.path, "own");
    cpSync(join(ROOT, "fixtures/agents/Agent/Critic"), join(home, "Agent/Critic"), {
      recursive: true,
    });
    put(home, "etc/AI/loopback.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\nkey: k\n`);
    for (const sub of ["Agent", "Agent/Critic", "etc", "etc/AI"]) {
      Deno.chownSync(join(home, sub), HOMELESS_UID, HOMELESS_UID);
    }
    const env = { SCOUT_HOME: home, ASK_ENDPOINT: "loopback" };
    const chat = join(dir.path, "plan.chat");
    const ask = await runHomeless(
      runtime,
      ["agent", "ask", "Critic", "-o", chat, "Bake at 250C for an hour"],
      dir.path,
      env,
    );
    assert.equal(ask.code, 0, ask.stderr);
    assert.equal(ask.stdout, "The oven may be too hot.\n");
    chmodSync(chat, 0o644);
    const tree = await runHomeless(runtime, ["llm", "prov", chat], dir.path, env);
    assert.equal(tree.code, 0, tree.stderr);
    assert.match(tree.stdout, /Critic\/ask/);
    const json = await runHomeless(runtime, ["llm", "prov", chat, "--json"], dir.path, env);
    assert.equal(json.code, 0, json.stderr);
    assert.match(json.stdout, /Critic\/ask/);
  });

  Deno.test(`no home and no SCOUT_HOME (${runtime}): the error says what to set`, async () => {
    assertCanRunHomeless();
    await using dir = await tempDir();
    const task = await runHomeless(
      runtime,
      ["workflow", "task", BAKING, "cake", "--eggs", "3"],
      dir.path,
      {},
    );
    assert.equal(task.stderr, "scout-ai: No home directory: set SCOUT_HOME or HOME\n");
    assert.equal(task.code, 1);
  });
}
