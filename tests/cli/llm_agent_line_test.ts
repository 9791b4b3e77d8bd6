/**
 * `llm ask` with an `agent:` line hands the chat to that agent as
 * `agent ask` would: the agent's start chat picks its endpoint (url, model and
 * the endpoint its meta records), not the default endpoint of the ask that
 * named it; and explicit `-e`/`-m` win over the start chat's lines ([TS-FIX]
 * agents.md §7.5), as on `agent ask` — on the task route too. A chat's
 * `persist: false` reaches the agent: nothing cached (§7.4, R116-1).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { routeWorkflowText } from "../support/route_workflow.ts";
import { put } from "../support/files.ts";

Deno.test("an agent: line: the agent's own endpoint is used and recorded; -e/-m beat its start chat", async () => {
  await using t = await tempDir();
  await using dflt = await startProviderServer({
    fallback: (r) => ({ text: `default ${r.body.model}` }),
  });
  await using own = await startProviderServer({
    fallback: (r) => ({ text: `own ${r.body.model}` }),
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/dflt.yaml", `backend: openai\nurl: ${dflt.url}\nmodel: dflt-model\n`);
  put(home, "etc/AI/own.yaml", `backend: openai\nurl: ${own.url}\nmodel: own-model\n`);
  put(t.path, "Agent/Pinned/start_chat", "system:\n\nYou are pinned\n\nendpoint: own\n");
  put(t.path, "Agent/Modelled/start_chat", "system:\n\nYou are modelled\n\nmodel: start-model\n");
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "k", ASK_ENDPOINT: "dflt" };
  const ask = (...args: string[]) =>
    runMain(["llm", "ask", "--no-cache", ...args], { env, cwd: t.path });

  const pinned = await ask("--json", "agent: Pinned\n\nuser: hi");
  assert.equal(pinned.code, 0, pinned.stderr);
  const out = JSON.parse(pinned.stdout);
  assert.equal(out.answer, "own own-model");
  assert.equal(out.endpoint, "own");
  assert.equal(dflt.requests.length, 0, "the default endpoint is never asked");
  // -e names the endpoint explicitly: it wins over the start chat's line
  assert.equal(
    (await ask("-e", "dflt", "agent: Pinned\n\nuser: hi")).stdout,
    "default dflt-model\n",
  );
  // the default endpoint serves an agent that names none; -m beats its model: line
  assert.equal((await ask("agent: Modelled\n\nuser: hi")).stdout, "default start-model\n");
  assert.equal(
    (await ask("-m", "cli-model", "agent: Modelled\n\nuser: hi")).stdout,
    "default cli-model\n",
  );
});

Deno.test("an agent: line naming a task-route agent: -m beats its start chat's model: line (§7.5, R104-6)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (r) => ({ text: `by ${r.body.model}` }),
  });
  const home = join(t.path, "home");
  put(home, "etc/AI/dflt.yaml", `backend: openai\nurl: ${srv.url}\nmodel: dflt-model\n`);
  const here = join(t.path, "Agent", "RoutedX");
  put(here, "start_chat", "system:\n\nYou route\n\nmodel: start-model\n");
  put(here, "workflow.ts", routeWorkflowText("RoutedX", here));
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "k", ASK_ENDPOINT: "dflt" };
  const ask = (...args: string[]) =>
    runMain(["llm", "ask", "--no-cache", ...args], { env, cwd: t.path });
  const r = await ask("-m", "cli-model", "agent: RoutedX\n\nuser: hi");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "by cli-model\n");
  assert.deepEqual(srv.requests.map((q) => q.body.model), ["cli-model"]);
  // without -m, the start chat's line applies
  const plain = await ask("agent: RoutedX\n\nuser: hello");
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, "by start-model\n");
});

Deno.test("an agent: line under a chat's persist: false line: the agent's answer is never cached (R116-1, agents.md §7.4)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "helped" }) });
  const home = join(t.path, "home");
  put(home, "etc/AI/loop.yaml", `backend: openai\nurl: ${srv.url}\nmodel: loop-model\n`);
  put(t.path, "Agent/Helper/start_chat", "system:\n\nYou help\n");
  put(t.path, "cli2.chat", "persist: false\n\nagent: Helper\n\nuser: help me\n");
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "k" };
  const ask = () =>
    runMain(["llm", "ask", "--json", "-e", "loop", "-c", "cli2.chat", "-o", "o.chat"], {
      env,
      cwd: t.path,
    });
  for (const run of [await ask(), await ask()]) {
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.answer, "helped");
    assert.equal(out.cached, false);
  }
  assert.equal(srv.requests.length, 2, "asked each time");
  assert.deepEqual(cacheEntries(home), []);
  // on the task route the job's answer is a cache too: persist: false runs a new job, as --no-cache
  const here = join(t.path, "Agent", "Routed");
  put(here, "start_chat", "system:\n\nYou route\n");
  put(here, "workflow.ts", routeWorkflowText("Routed", here));
  put(t.path, "routed.chat", "persist: false\n\nagent: Routed\n\nuser: route me\n");
  clearAgentCache();
  for (let i = 0; i < 2; i++) {
    const run = await runMain([
      "llm",
      "ask",
      "--json",
      "-e",
      "loop",
      "-c",
      "routed.chat",
      "-o",
      "o.chat",
    ], {
      env,
      cwd: t.path,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).cached, false);
  }
  assert.equal(srv.requests.length, 4, "the routed agent asked each time");
  assert.deepEqual(cacheEntries(home), []);
  // without the line the done job answers the second time, and says so
  put(t.path, "kept.chat", "agent: Routed\n\nuser: route me\n");
  const kept = () =>
    runMain(["llm", "ask", "--json", "-e", "loop", "-c", "kept.chat", "-o", "o.chat"], {
      env,
      cwd: t.path,
    });
  assert.equal(JSON.parse((await kept()).stdout).cached, false);
  const again = await kept();
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).cached, true);
  assert.equal(srv.requests.length, 5);
});

/** The inference cache entries (`<key>.json`) under a SCOUT_HOME. */
function cacheEntries(home: string): string[] {
  const dir = join(home, "var", "cache", "ask");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
}
