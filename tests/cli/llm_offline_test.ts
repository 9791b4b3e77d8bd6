/**
 * Offline replay (`--offline`, `SCOUT_OFFLINE=1`): a run recorded against the
 * loopback provider replays byte-identically from the inference cache with
 * the provider stopped; a miss is `not_cached` and sends no request.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { input, workflow } from "../../src/workflow/define.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

workflow("OfflinePantry", {
  tasks: {
    stock: {
      type: "string",
      inputs: { item: input.string({ required: true }) },
      run: ({ item }) => `${item}: 4`,
    },
  },
});

const CHAT = "tool: OfflinePantry stock\n\nuser: how many eggs?\n";

Deno.test("offline replay of a recorded tool-loop run is byte-identical with the provider stopped", async () => {
  await using dir = await tempDir();
  const srv = await startProviderServer();
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "test-model"];
  const run = (args: string[], e: Record<string, string> = env) =>
    runMain(["llm", ...args], { env: e, cwd: dir.path });
  await Deno.writeTextFile(join(dir.path, "rec.chat"), CHAT);
  await Deno.writeTextFile(join(dir.path, "rep.chat"), CHAT);
  srv.script(
    { toolCalls: [{ name: "stock", arguments: { item: "eggs" }, id: "call_1" }] },
    { text: "Four eggs." },
  );
  const rec = await run(["ask", ...flags, "-c", "rec.chat", "-o", "rec.chat"]);
  assert.equal(rec.code, 0, rec.stderr);
  assert.equal(srv.requests.length, 2);
  const recorded = await Deno.readTextFile(join(dir.path, "rec.chat"));
  // the recording carries the tool output's timestamps: replay must reproduce them
  assert.match(recorded, /start_timestamp/);
  await srv.close();
  await new Promise((r) => setTimeout(r, 20)); // a later clock than the recording
  const rep = await run(["ask", ...flags, "-c", "rep.chat", "-o", "rep.chat", "--offline"]);
  assert.equal(rep.code, 0, rep.stderr);
  assert.equal(rep.stdout, rec.stdout);
  assert.equal(await Deno.readTextFile(join(dir.path, "rep.chat")), recorded);
  // the same through the environment
  await Deno.writeTextFile(join(dir.path, "env.chat"), CHAT);
  const viaEnv = await run(["ask", ...flags, "-c", "env.chat", "-o", "env.chat"], {
    ...env,
    SCOUT_OFFLINE: "1",
  });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  assert.equal(await Deno.readTextFile(join(dir.path, "env.chat")), recorded);
});

Deno.test("offline cache miss: not_cached names the endpoint and digest; the provider gets no request", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: test-model\n`,
  );
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  srv.script({ text: "never" });
  const r = await runMain(["llm", "ask", "-e", "loop", "--offline", "--json", "new question"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Offline: no cached answer for endpoint "loop" .*digest [0-9a-f]{64}/);
  assert.equal(srv.requests.length, 0);
  const viaEnv = await runMain(["llm", "ask", "-e", "loop", "other question"], {
    env: { ...env, SCOUT_OFFLINE: "1" },
    cwd: dir.path,
  });
  assert.equal(viaEnv.code, 1);
  assert.match(viaEnv.stderr, /Offline: no cached answer/);
  assert.equal(srv.requests.length, 0);
  // without offline the same question does reach the provider (the test can fail)
  const online = await runMain(["llm", "ask", "-e", "loop", "other question"], {
    env,
    cwd: dir.path,
  });
  assert.equal(online.code, 0, online.stderr);
  assert.equal(srv.requests.length, 1);
});

Deno.test("agent ask --offline replays a recorded agent answer; a miss is not_cached", async () => {
  await using dir = await tempDir();
  const srv = await startProviderServer();
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "AI", "loop.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: test-model\n`,
  );
  await Deno.mkdir(join(dir.path, "Agent", "Baker"), { recursive: true });
  await Deno.writeTextFile(
    join(dir.path, "Agent", "Baker", "start_chat"),
    "system:\n\nYou are the Baker\n",
  );
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  const agent = (args: string[]) => runMain(["agent", "ask", ...args], { env, cwd: dir.path });
  srv.script({ text: "Knead it." });
  const rec = await agent(["Baker", "-e", "loop", "How?"]);
  assert.equal(rec.code, 0, rec.stderr);
  await srv.close();
  const rep = await agent(["Baker", "-e", "loop", "--offline", "How?"]);
  assert.equal(rep.code, 0, rep.stderr);
  assert.equal(rep.stdout, rec.stdout);
  const miss = await agent(["Baker", "-e", "loop", "--offline", "Why?"]);
  assert.equal(miss.code, 1);
  assert.match(miss.stderr, /Offline: no cached answer for endpoint "loop"/);
  assert.equal(srv.requests.length, 1);
});

Deno.test("an agent: line runs its agent with the ask's --offline and --no-cache", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "from the agent" }) });
  const home = join(dir.path, "home");
  await Deno.mkdir(join(dir.path, "Agent", "Lib"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "Agent", "Lib", "start_chat"), "system: You are Lib\n");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m"];
  const run = (...args: string[]) =>
    runMain(["llm", "ask", ...flags, ...args, "agent: Lib\n\nuser: q"], { env, cwd: dir.path });
  const entries = () => {
    try {
      return [...Deno.readDirSync(join(home, "var", "cache", "ask"))]
        .filter((e) => e.name.endsWith(".json")).length;
    } catch {
      return 0;
    }
  };
  const offline = await run("--offline");
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /Offline: no cached answer/);
  assert.equal(srv.requests.length, 0, "offline never calls the provider");
  const fresh = await run("--no-cache");
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(fresh.stdout, "from the agent\n");
  assert.equal(entries(), 0, "--no-cache stores nothing");
  assert.equal((await run()).code, 0);
  assert.equal(entries(), 1);
  const replay = await run("--offline");
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(srv.requests.length, 2);
});

Deno.test("SCOUT_OFFLINE=0, no, off or empty leaves offline replay off", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "live" }) });
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  for (const v of ["0", "no", "off", "", "false"]) {
    const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x", SCOUT_OFFLINE: v };
    const r = await runMain(["llm", "ask", ...flags, "hi"], { env, cwd: dir.path });
    assert.equal(r.stdout, "live\n", `SCOUT_OFFLINE=${JSON.stringify(v)}: ${r.stderr}`);
  }
});
