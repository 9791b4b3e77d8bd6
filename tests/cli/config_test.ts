import assert from "node:assert/strict";
import { join } from "node:path";
import { isSecret } from "../../src/cli/config.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { twoConfigs } from "../support/config_files.ts";

const KEY = "sk-config-SECRET-9911";

Deno.test("config set/get/unset round trip through $SCOUT_HOME/etc/config; other lines kept", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path };
  const file = join(d.path, "etc", "config");
  await Deno.mkdir(join(d.path, "etc"));
  await Deno.writeTextFile(file, "# my settings\nmax_tool_rounds 20 llm\n");
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd: d.path });
  assert.equal((await run(["set", "endpoint", "nano", "ask"])).code, 0);
  assert.equal((await run(["set", "endpoint", "mini", "ask"])).code, 0);
  assert.equal(
    await Deno.readTextFile(file),
    "# my settings\nmax_tool_rounds 20 llm\nendpoint mini ask\n",
  );
  assert.deepEqual(await run(["get", "endpoint", "ask"]), {
    code: 0,
    stdout: "mini\n",
    stderr: "",
  });
  assert.equal((await run(["get", "max_tool_rounds", "llm"])).stdout, "20\n");
  const missing = await run(["get", "nothing"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Not set: "nothing"/);
  assert.equal((await run(["unset", "endpoint", "ask"])).code, 0);
  assert.equal(await Deno.readTextFile(file), "# my settings\nmax_tool_rounds 20 llm\n");
  assert.equal((await run(["unset", "endpoint", "ask"])).code, 1);
  const bad = await run(["set", "key", "two words"]);
  assert.equal(bad.code, 2);
});

Deno.test("config never prints a key: get, set, list and list --json hide secrets", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path };
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd: d.path });
  const set = await run(["set", "key", KEY, "openai"]);
  assert.equal(set.code, 0);
  assert.ok(!set.stderr.includes(KEY) && set.stderr.includes("[hidden]"));
  const get = await run(["get", "key", "openai"]);
  assert.equal(get.stdout, "[hidden]\n");
  assert.match(get.stderr, /is a secret/);
  await Deno.mkdir(join(d.path, "etc", "AI"), { recursive: true });
  await Deno.writeTextFile(
    join(d.path, "etc", "AI", "nano.yaml"),
    `backend: responses\nmodel: gpt-5-nano\nkey: ${KEY}\n`,
  );
  const list = await run(["list"]);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /key\s+\[hidden\]\s+\[openai\]/);
  assert.match(list.stdout, /nano\s+responses\s+gpt-5-nano\s+key set/);
  const json = await run(["list", "--json"]);
  const j = JSON.parse(json.stdout);
  assert.equal(j.version, 1);
  assert.deepEqual(j.entries[0], {
    key: "key",
    value: "[hidden]",
    scopes: ["openai"],
    source: `${join(d.path, "etc", "config")}:1`,
  });
  assert.equal(j.endpoints.find((e: { name: string }) => e.name === "nano").hasKey, true);
  for (const out of [set, get, list, json]) assert.ok(!(out.stdout + out.stderr).includes(KEY));
  // the value is stored for the user, where they asked
  assert.ok((await Deno.readTextFile(join(d.path, "etc", "config"))).includes(KEY));
});

Deno.test("secret detection", () => {
  for (const k of ["key", "api_key", "openai_key", "TOKEN", "secret", "password"]) {
    assert.ok(isSecret(k), k);
  }
  for (const k of ["endpoint", "keyboard", "max_tokens", "model"]) assert.ok(!isSecret(k, "x"), k);
  assert.ok(isSecret("anything", "sk-abc"));
});

Deno.test("a config line with a key only is no error: get answers, list shows nil (R80-5)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: d.path };
  await Deno.mkdir(join(d.path, "etc"));
  await Deno.writeTextFile(join(d.path, "etc", "config"), "endpoint home ask\nlonely\n");
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd: d.path });
  assert.deepEqual(await run(["get", "endpoint", "ask", "llm"]), {
    code: 0,
    stdout: "home\n",
    stderr: "",
  });
  assert.equal((await run(["get", "lonely"])).stdout, "nil\n");
  assert.match((await run(["list"])).stdout, /lonely\s+nil/);
  const j = JSON.parse((await run(["list", "--json"])).stdout);
  assert.equal(j.entries[1].value, null);
});

Deno.test("config set without a scope warns that no scoped lookup reads the entry (R80-1)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home") };
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd: d.path });
  const set = await run(["set", "endpoint", "foo"]);
  assert.equal(set.code, 0);
  assert.match(set.stderr, /warning: "endpoint" was set without a scope/);
  assert.match(set.stderr, /scout-ai config set endpoint VALUE ask/);
  assert.equal(
    await Deno.readTextFile(join(d.path, "home", "etc", "config")),
    "endpoint foo\n",
  );
  // as in Ruby: Scout::Config.get(:endpoint, :ask, :llm) → nil
  assert.equal((await run(["get", "endpoint", "ask", "llm"])).code, 1);
  assert.equal((await run(["get", "endpoint"])).stdout, "foo\n");
  const prompt = await run(["set", "epoch_size", "40"]);
  assert.match(prompt.stderr, /config set epoch_size VALUE prompt/);
  const scoped = await run(["set", "endpoint", "nano", "ask"]);
  assert.ok(!scoped.stderr.includes("warning"), scoped.stderr);
  const help = await runMain(["config", "set", "--help"], { env, cwd: d.path });
  assert.ok(!help.stdout.includes("global"), help.stdout);
});

Deno.test("config get/list read ./etc/config after $SCOUT_HOME's; list names each entry's file (R80-4, R80-5)", async () => {
  await using d = await tempDir();
  const { home, cwd, homeFile, cwdFile } = await twoConfigs(
    d.path,
    "endpoint home ask\nlonely\n",
    "endpoint local ask\n",
  );
  const env = { SCOUT_HOME: home };
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd });
  // Ruby: the cwd's file loads last, "local"; the key-only line is no error
  assert.deepEqual(await run(["get", "endpoint", "ask", "llm"]), {
    code: 0,
    stdout: "local\n",
    stderr: "",
  });
  assert.equal((await run(["get", "lonely"])).stdout, "nil\n");
  const list = await run(["list"]);
  assert.equal(list.code, 0);
  assert.match(list.stdout, new RegExp(`endpoint\\s+home\\s+\\[ask\\]\\s+${homeFile}:1`));
  assert.match(
    list.stdout,
    new RegExp(`lonely\\s+nil\\s+\\(no scope: read by nothing\\)\\s+${homeFile}:2`),
  );
  assert.match(list.stdout, new RegExp(`endpoint\\s+local\\s+\\[ask\\]\\s+${cwdFile}:1`));
  const j = JSON.parse((await run(["list", "--json"])).stdout);
  assert.equal(j.file, homeFile);
  assert.deepEqual(j.files, [cwdFile, homeFile]);
  assert.deepEqual(j.entries.map((e: { source: string }) => e.source), [
    `${homeFile}:1`,
    `${homeFile}:2`,
    `${cwdFile}:1`,
  ]);
  assert.equal(j.entries[1].value, null);
  // set keeps writing $SCOUT_HOME/etc/config
  assert.equal((await run(["set", "persist", "false", "ask"])).code, 0);
  assert.equal(await Deno.readTextFile(cwdFile), "endpoint local ask\n");
  assert.match(await Deno.readTextFile(homeFile), /persist false ask\n$/);
});

Deno.test("config set warns when an entry of ./etc/config answers the key and scopes instead (R84-6)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const cwd = join(d.path, "work");
  await Deno.mkdir(join(cwd, "etc"), { recursive: true });
  const cwdFile = join(cwd, "etc", "config");
  await Deno.writeTextFile(cwdFile, "# here\nendpoint local ask\n");
  const env = { SCOUT_HOME: home };
  const run = (args: string[]) => runMain(["config", ...args], { env, cwd });
  const set = await run(["set", "endpoint", "home", "ask"]);
  assert.equal(set.code, 0);
  assert.match(
    set.stderr,
    new RegExp(
      `warning: .*"endpoint" \\[ask\\] is "local" here: the entry at ${cwdFile}:2 wins over the one just set`,
    ),
  );
  assert.equal((await run(["get", "endpoint", "ask"])).stdout, "local\n");
  // a key and scope nothing else answers: no warning
  const alone = await run(["set", "persist", "false", "ask"]);
  assert.ok(!alone.stderr.includes("warning"), alone.stderr);
  // the same value in ./etc/config: nothing to warn about
  const same = await run(["set", "endpoint", "local", "ask"]);
  assert.ok(!same.stderr.includes("warning"), same.stderr);
});
