/**
 * The config store (`key value [scope…]` entries, scoped lookup, `false` /
 * `nil` / `env:` values) and SCOUT_HOME resolution, on real files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { expandHome, scoutHome } from "../../src/config/home.ts";
import {
  addConfigEntry,
  configGet,
  emptyConfig,
  loadConfig,
  parseConfigText,
} from "../../src/config/store.ts";
import { tempDir } from "../support/cli.ts";
import { twoConfigs } from "../support/config_files.ts";

Deno.test("parseConfigText: key value scopes…, comments and blank lines skipped, sources name file:line", () => {
  const entries = parseConfigText(
    "# settings\n\nendpoint nano ask llm\n  max_tool_rounds 20\n",
    "cfg",
  );
  assert.deepEqual(entries, [
    { key: "endpoint", value: "nano", tokens: ["ask", "llm"], source: "cfg:3" },
    { key: "max_tool_rounds", value: "20", tokens: [], source: "cfg:4" },
  ]);
});

Deno.test("a config line with a key only is an entry whose value is nil, as Ruby's (R80-5)", () => {
  const entries = parseConfigText("ok 1\nlonely\n", "/h/etc/config");
  assert.deepEqual(entries[1], {
    key: "lonely",
    value: null,
    tokens: [],
    source: "/h/etc/config:2",
  });
  const store = { entries };
  assert.equal(configGet(store, "lonely"), null);
  assert.equal(configGet(store, "ok"), "1");
  // a nil entry answers: no env fallback behind it (Ruby returns nil)
  const opts = { env: ["E"], environment: { E: "x" } };
  assert.equal(configGet(store, "lonely", [], opts), null);
  // …and being unscoped, no scoped lookup reads it
  assert.equal(configGet(store, "lonely", ["ask"], opts), "x");
});

Deno.test("configGet: an entry without scopes answers only a lookup without scopes (R80-1)", () => {
  const store = {
    entries: parseConfigText(
      [
        "model unscoped-1",
        "model for-llm llm",
        "model for-ask ask",
        "model unscoped-2",
        "model for-ask-later ask other",
      ].join("\n"),
    ),
  };
  assert.equal(configGet(store, "model", ["ask", "llm"]), "for-ask-later");
  assert.equal(configGet(store, "model", ["llm", "ask"]), "for-llm");
  // Ruby: no scoped lookup reads an unscoped entry
  assert.equal(configGet(store, "model", ["elsewhere"]), undefined);
  // a lookup without scopes reads every entry of the key: the last one wins
  assert.equal(configGet(store, "model", []), "for-ask-later");
  assert.equal(configGet({ entries: parseConfigText("model a ask\nmodel b") }, "model"), "b");
  assert.equal(configGet(store, "missing", ["ask"]), undefined);
  // scoped entries never answer a lookup that does not name their scope
  const scopedOnly = { entries: parseConfigText("key k1 openai") };
  assert.equal(configGet(scopedOnly, "key", ["anthropic"]), undefined);
});

Deno.test("configGet values: false, nil, env:A,B; env fallbacks only when no entry matches", () => {
  const store = emptyConfig();
  addConfigEntry(store, { key: "persist", value: "false", tokens: ["ask"] });
  addConfigEntry(store, { key: "endpoint", value: "nil", tokens: ["ask"] });
  addConfigEntry(store, { key: "key", value: "env:MY_KEY,OTHER_KEY", tokens: ["openai"] });
  const environment = { OTHER_KEY: "from-other", MY_KEY: "", FALLBACK: "fb" };
  assert.equal(configGet(store, "persist", ["ask"], { environment }), false);
  assert.equal(configGet(store, "endpoint", ["ask"], { environment }), null);
  // the first *set* variable (empty counts as unset)
  assert.equal(configGet(store, "key", ["openai"], { environment }), "from-other");
  assert.equal(configGet(store, "key", ["openai"], { environment: {} }), undefined);
  // an entry beats the env list; without one the first set variable answers
  assert.equal(
    configGet(store, "persist", ["ask"], { env: ["FALLBACK"], environment }),
    false,
  );
  assert.equal(configGet(store, "url", ["ask"], { env: ["NONE", "FALLBACK"], environment }), "fb");
});

Deno.test("loadConfig reads $SCOUT_HOME/etc/config; missing files are an empty store", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const opts = { cwd: join(d.path, "work"), env: { SCOUT_HOME: home } };
  assert.deepEqual(loadConfig(opts), { entries: [], files: [] });
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  const file = join(home, "etc", "config");
  await Deno.writeTextFile(file, "endpoint nano ask\n");
  const store = loadConfig(opts);
  assert.deepEqual(store.entries, [
    { key: "endpoint", value: "nano", tokens: ["ask"], source: `${file}:1` },
  ]);
  assert.deepEqual(store.files, [file]);
  // a line with a key only no longer stops every command (R80-5)
  await Deno.writeTextFile(file, "endpoint\n");
  assert.deepEqual(loadConfig(opts).entries[0]?.value, null);
});

Deno.test("loadConfig reads ./etc/config too, after $SCOUT_HOME's, so it wins at equal priority (R80-4)", async () => {
  await using d = await tempDir();
  const { home, cwd, homeFile, cwdFile } = await twoConfigs(
    d.path,
    "endpoint home ask\nother h ask\n",
    "endpoint local ask\nlonely\n",
  );
  const store = loadConfig({ cwd, env: { SCOUT_HOME: home } });
  // Ruby: Path.setup("etc").config.find_all.reverse → the cwd's file loads last
  assert.deepEqual(store.entries.map((e) => e.source), [
    `${homeFile}:1`,
    `${homeFile}:2`,
    `${cwdFile}:1`,
    `${cwdFile}:2`,
  ]);
  assert.deepEqual(store.files, [cwdFile, homeFile]);
  assert.equal(configGet(store, "endpoint", ["ask", "llm"]), "local");
  assert.equal(configGet(store, "other", ["ask"]), "h");
  assert.equal(configGet(store, "lonely"), null);
  assert.equal(configGet(store, "endpoint"), "local");
  // the same file through both roots (cwd = the home's parent) is read once
  const once = loadConfig({ cwd: home, env: { SCOUT_HOME: home } });
  assert.deepEqual(once.files, [homeFile]);
  assert.equal(once.entries.length, 2);
});

Deno.test("SCOUT_HOME: absolute, ~ expanded, relative resolved; default ~/.scout", () => {
  assert.equal(scoutHome({ SCOUT_HOME: "/srv/scout" }), "/srv/scout");
  assert.equal(scoutHome({ SCOUT_HOME: "~/sc", HOME: "/home/u" }), "/home/u/sc");
  assert.equal(scoutHome({ SCOUT_HOME: "rel" }), join(process.cwd(), "rel"));
  assert.equal(scoutHome({ HOME: "/home/u" }), "/home/u/.scout");
  assert.equal(scoutHome({ SCOUT_HOME: "", HOME: "/home/u" }), "/home/u/.scout");
  assert.equal(expandHome("~", { HOME: "/h" }), "/h");
  assert.equal(expandHome("~/a/b", { HOME: "/h" }), "/h/a/b");
  assert.equal(expandHome("~user/a", { HOME: "/h" }), "~user/a");
});
