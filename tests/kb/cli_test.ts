/**
 * `scout-ai kb register|list|query` and `agent kb` in-process: text and
 * JSON output, exit codes, and bad input as one line naming file and line.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("kb register, list and query: lines and --json", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  const o = { cwd: d.path, env: { NO_COLOR: "1" } };
  const r = await runMain(
    ["kb", "register", kb, "parents", join(FAMILY, "parents"), "--description", "Parents"],
    o,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "parents\tChild (Alias) -> Parent (Alias)  [Type of parent]\n");
  await runMain(["kb", "register", "kb", "sib", join(FAMILY, "siblings"), "--undirected"], o);
  const m = await runMain(
    [
      "kb",
      "register",
      kb,
      "wed",
      join(FAMILY, "marriages"),
      "--source",
      "Wife",
      "--fields",
      "Place",
    ],
    o,
  );
  assert.equal(m.stdout, "wed\tWife (Alias) -> Husband (Alias)  [Place]\n");
  const l = await runMain(["kb", "list", kb], o);
  assert.equal(
    l.stdout,
    "parents  Child (Alias) -> Parent (Alias)  [Type of parent]\n" +
      "sib      Older (Alias) <-> Younger (Alias)\n" +
      "wed      Wife (Alias) -> Husband (Alias)  [Place]\n",
  );
  const lj = JSON.parse((await runMain(["kb", "list", kb, "--json"], o)).stdout);
  assert.equal(lj.version, 1);
  assert.deepEqual(lj.databases.map((x: { name: string }) => x.name), ["parents", "sib", "wed"]);
  assert.equal(lj.databases[0].description, "Parents");
  const q = await runMain(["kb", "query", kb, "parents", "Ada", "Hugo"], o);
  assert.equal(
    q.stdout,
    "Ada~Bruno\tfather\nAda~Carla\tmother\nHugo~Fede\tfather\nHugo~Gala\tmother\n",
  );
  const rev = await runMain(["kb", "query", kb, "parents", "Gala", "--reverse", "--json"], o);
  assert.deepEqual(JSON.parse(rev.stdout).associations, [
    { key: "Gala~Eva", source: "Eva", target: "Gala", values: { "Type of parent": "mother" } },
    { key: "Gala~Hugo", source: "Hugo", target: "Gala", values: { "Type of parent": "mother" } },
  ]);
  assert.equal((await runMain(["kb", "query", kb, "wed", "Gala"], o)).stdout, "Gala~Fede\tVigo\n");
  const none = await runMain(["kb", "query", kb, "parents", "Nobody"], o);
  assert.deepEqual([none.code, none.stdout, none.stderr], [0, "", ""]);
});

Deno.test("kb errors: one line naming file and line, exit 1; usage errors exit 2", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { NO_COLOR: "1" } };
  const bad = join(d.path, "bad.tsv");
  writeFileSync(bad, "#K\tT\tF\na\tb\tc\nonly\ttwo\n");
  await runMain(["kb", "register", "kb", "bad", bad], o); // the header is fine
  const q = await runMain(["kb", "query", "kb", "bad", "a"], o);
  assert.equal(q.code, 1);
  assert.equal(q.stderr, `scout-ai: Row has 2 columns, the header has 3 in "${bad}" (${bad}:3)\n`);
  const list = await runMain(["kb", "list", "kb"], o);
  // every row is checked, as the help says (before: listed as fine, exit 0 — R76-13)
  assert.equal(list.code, 1, list.stderr);
  assert.match(list.stdout, /^bad {2}unreadable: Row has 2 columns, .*bad\.tsv:3\)\n$/);
  writeFileSync(bad, "#K\t\tF\n");
  const l2 = await runMain(["kb", "list", "kb"], o);
  assert.equal(l2.code, 1);
  assert.match(l2.stdout, /^bad {2}unreadable: Missing field name in column 2 .*bad\.tsv:1\)\n$/);
  const bin = join(d.path, "bin.tsv");
  writeFileSync(bin, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
  const r = await runMain(["kb", "register", "kb", "elf", bin], o);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `scout-ai: Not a TSV file (binary content) "${bin}" (${bin}:1)\n`);
  const u = await runMain(["kb", "query", "kb", "nope", "a"], o);
  assert.equal(u.code, 1);
  assert.match(
    u.stderr,
    /^scout-ai: Unknown database "nope" in knowledge base ".*kb" \(databases: bad\)/,
  );
  assert.equal((await runMain(["kb", "query", "kb"], o)).code, 2);
  assert.equal((await runMain(["kb", "list", "missing"], o)).code, 1);
});

Deno.test("agent kb: the same commands on an agent's knowledge_base/ (created by register)", async () => {
  await using d = await tempDir();
  const env = { NO_COLOR: "1", SCOUT_AGENT_PATH: join(ROOT, "fixtures", "kb", "agents") };
  const o = { cwd: d.path, env };
  const l = await runMain(["agent", "kb", "Genealogist", "list"], o);
  assert.equal(l.code, 0, l.stderr);
  assert.equal(
    l.stdout,
    "parents   Child (Alias) -> Parent (Alias)  [Type of parent]\n" +
      "siblings  Older (Alias) <-> Younger (Alias)\n",
  );
  const q = await runMain(["agent", "kb", "Genealogist", "query", "siblings", "Eva", "--json"], o);
  assert.deepEqual(JSON.parse(q.stdout).associations.map((a: { key: string }) => a.key), [
    "Eva~Hugo",
  ]);
  // an agent without a knowledge_base/: register creates it
  const mine = { ...o, env: { ...env, SCOUT_AGENT_PATH: d.path } };
  Deno.mkdirSync(join(d.path, "Agent", "Fresh"), { recursive: true });
  writeFileSync(join(d.path, "Agent", "Fresh", "start_chat"), "system: hi\n");
  const r = await runMain(
    ["agent", "kb", "Fresh", "register", "parents", join(FAMILY, "parents")],
    mine,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Deno.statSync(join(d.path, "Agent", "Fresh", "knowledge_base", "config", "registry")));
  const help = await runMain(["agent", "kb", "--help"], o);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Examples[^\n]*:/);
  assert.equal((await runMain(["agent", "kb"], o)).code, 2);
  const missing = await runMain(["agent", "kb", "Nobody", "list"], o);
  assert.equal(missing.code, 2); // an agent argument naming none: a usage error (R94-4)
  assert.match(missing.stderr, /No agent found with name Nobody/);
  // usage errors as every command's (scout-ai: …, exit 2); usage lines name the agent
  const bogus = await runMain(["agent", "kb", "Genealogist", "bogus"], o);
  assert.deepEqual([bogus.code, bogus.stderr], [
    2,
    "scout-ai: unknown command 'bogus'\n(run with --help for usage)\n",
  ]);
  const short = await runMain(["agent", "kb", "Genealogist", "query"], o);
  assert.equal(short.code, 2);
  assert.match(short.stderr, /^scout-ai: missing required argument 'database'\n/);
  const qhelp = await runMain(["agent", "kb", "Genealogist", "query", "--help"], o);
  assert.match(qhelp.stdout, /^Usage: scout-ai agent kb Genealogist query \[options\] <database>/);
});

Deno.test("kb query: entities spelled like Object.prototype members are entities (R112-5)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { NO_COLOR: "1" } };
  const kb = join(d.path, "kb");
  await runMain(["kb", "register", kb, "parents", join(FAMILY, "parents")], o);
  for (const word of ["toString", "constructor", "__proto__", "valueOf", "hasOwnProperty"]) {
    const r = await runMain(["kb", "query", kb, "parents", word], o);
    // before: exit 2, `Unknown flag toString: function toString() { [native code] }`
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
  }
  const ada = await runMain(["kb", "query", kb, "parents", "toString", "Ada"], o);
  assert.equal(ada.stdout, "Ada~Bruno\tfather\nAda~Carla\tmother\n");
});

Deno.test("kb register: databases named __proto__ and constructor are kept (R112-5)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { NO_COLOR: "1" } };
  const kb = join(d.path, "kb");
  await runMain(["kb", "register", kb, "__proto__", join(FAMILY, "parents")], o);
  await runMain(["kb", "register", kb, "constructor", join(FAMILY, "siblings")], o);
  const l = await runMain(["kb", "list", kb], o);
  // before: `data[name] =` set the registry object's prototype: `__proto__` was never written
  assert.equal(l.code, 0, l.stderr);
  assert.equal(
    l.stdout,
    "__proto__    Child (Alias) -> Parent (Alias)  [Type of parent]\n" +
      "constructor  Older (Alias) -> Younger (Alias)\n",
  );
  const q = await runMain(["kb", "query", kb, "__proto__", "Ada"], o);
  assert.equal(q.stdout, "Ada~Bruno\tfather\nAda~Carla\tmother\n");
});
