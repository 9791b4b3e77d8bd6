import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { jobAt, loadJob } from "../../src/workflow/job.ts";
import { jobStore } from "../../src/workflow/store.ts";
import { jobLogChats } from "../../src/workflow/files.ts";
import { loadJobResult } from "../../src/workflow/run.ts";

const FIX = join(ROOT, "fixtures", "scout-jobs");
const env = (home: string) => ({ SCOUT_HOME: home, HOME: home, NO_COLOR: "1" });

Deno.test("workflow info reads Scout-made jobs: done job, relocated dependency", async () => {
  await using d = await tempDir();
  const r = await runMain(
    ["workflow", "info", "Baking/batter/Default_8a5584e7aa2b07b58b06e14eb665a07e.json", "--json"],
    { cwd: FIX, env: env(d.path) },
  );
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.version, 1);
  assert.equal(out.status, "done");
  assert.equal(out.done, true);
  assert.equal(out.info.type, "json");
  assert.deepEqual(out.info.provided_inputs, { eggs: 3 });
  assert.deepEqual(out.dependencies, [{
    ref: "/home/u/.scout/var/jobs/Baking/whisk/Default_09c565660e3592e6a4001674e5a22269",
    path: join(FIX, "var/jobs/Baking/whisk/Default_09c565660e3592e6a4001674e5a22269"),
    status: "done",
  }]);
  const text = await runMain(
    [
      "workflow",
      "info",
      join(FIX, "var/jobs/Baking/batter/Default_8a5584e7aa2b07b58b06e14eb665a07e.json"),
    ],
    { cwd: d.path, env: env(d.path) },
  );
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /status +done/);
  assert.match(text.stdout, /inputs +flour=0\.5/);
  assert.match(
    text.stdout,
    /dependency done +Baking\/whisk\/Default_09c565660e3592e6a4001674e5a22269/,
  );
});

Deno.test("workflow info: error job with a Ruby Marshal exception and array-form dependency", async () => {
  await using d = await tempDir();
  const r = await runMain(["workflow", "info", "Baking/bake/Default"], {
    cwd: FIX,
    env: env(d.path),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /status +error \(no result\)/);
  assert.match(r.stdout, /message +ScoutException: bad x/);
  assert.match(r.stdout, /backtrace +\/home\/u\/\.scout\/workflows\/Baking\/workflow\.rb:23/);
  assert.match(
    r.stdout,
    /dependency done +Baking\/batter\/Default_8a5584e7aa2b07b58b06e14eb665a07e\.json/,
  );
});

Deno.test("workflow info: chat task with logs, unknown keys kept; Marshal-only info → noinfo + warning", async () => {
  await using d = await tempDir();
  const r = await runMain(
    ["workflow", "info", "Pipeline/ask/Default_dbfa89396d7a5eb718c1a46679e1a356.chat", "--json"],
    { cwd: FIX, env: env(d.path) },
  );
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.files, ["log/agent.chat", "log/society/Worker/c1.chat"]);
  assert.deepEqual(out.info.children_pids, [12901]);
  const legacy = await runMain(["workflow", "info", "Legacy/old/Default"], {
    cwd: FIX,
    env: env(d.path),
  });
  assert.equal(legacy.code, 0);
  assert.match(legacy.stdout, /status +noinfo/);
  assert.match(
    legacy.stderr,
    /warning: Info file ".*Legacy\/old\/Default\.info" is a Ruby Marshal dump/,
  );
});

Deno.test("library: jobAt loads Scout-made jobs, results and log chats", async () => {
  await using d = await tempDir();
  cpSync(FIX, join(d.path, "copy"), { recursive: true });
  const store = jobStore({ env: env(d.path), cwd: join(d.path, "copy") });
  const ask = jobAt("Pipeline/ask/Default_dbfa89396d7a5eb718c1a46679e1a356.chat", {
    store,
    cwd: join(d.path, "copy"),
  });
  assert.equal(ask.type, "chat");
  const chat = await loadJobResult(ask) as { role: string }[];
  assert.deepEqual(chat.map((m) => m.role), [
    "meta",
    "function_call",
    "function_call_output",
    "assistant",
  ]);
  assert.equal((await jobLogChats(ask.path)).length, 2);
  const bake = loadJob("Baking/bake/Default", { store, cwd: join(d.path, "copy") });
  assert.equal(
    bake.deps[0]!.shortPath,
    "Baking/batter/Default_8a5584e7aa2b07b58b06e14eb665a07e.json",
  );
  assert.equal(
    bake.deps[0]!.deps[0]!.shortPath,
    "Baking/whisk/Default_09c565660e3592e6a4001674e5a22269",
  );
  assert.equal(await loadJobResult(bake.deps[0]!.deps[0]!), "Whisked 3 soft");
});

Deno.test("workflow info: unknown job, truncated info", async () => {
  await using d = await tempDir();
  const r = await runMain(["workflow", "info", "Baking/nope/Default"], {
    cwd: FIX,
    env: env(d.path),
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Job not found: "Baking\/nope\/Default"/);
  const root = join(d.path, "var", "jobs", "W", "t");
  await Deno.mkdir(root, { recursive: true });
  await Deno.writeTextFile(join(root, "Default.info"), '{"status":"done","inputs":[1,');
  const t = await runMain(["workflow", "info", "W/t/Default"], { cwd: d.path, env: env(d.path) });
  assert.equal(t.code, 0);
  assert.match(t.stdout, /status +noinfo/);
  assert.match(t.stderr, /is not valid JSON/);
});
