import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  databaseDescription,
  readmeSections,
  readRegistry,
  writeRegistry,
} from "../../src/kb/registry.ts";
import { databaseInfo, databaseNames, openKnowledgeBase } from "../../src/kb/database.ts";
import { registerDatabase } from "../../src/kb/resolve.ts";
import { ROOT, tempDir } from "../support/cli.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("registry written by Ruby: :symbol: keys, !ruby tags, a Path dumped as a str: mapping", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "config"));
  writeFileSync(
    join(d.path, "config", "registry"),
    `---
:parents:
- !ruby/string:Path
  str: ${FAMILY}/parents
- :source: Child
  :undirected: false
:siblings:
- ${FAMILY}/siblings
- !ruby/hash:IndiferentHash
  :undirected: true
  :description: Brothers and sisters
`,
  );
  const reg = readRegistry(d.path);
  assert.deepEqual([...reg.keys()], ["parents", "siblings"]);
  assert.deepEqual(reg.get("parents"), {
    file: `${FAMILY}/parents`,
    options: { source: "Child", undirected: false },
  });
  assert.deepEqual(reg.get("siblings")!.options, {
    undirected: true,
    description: "Brothers and sisters",
  });
  const kb = openKnowledgeBase(d.path);
  const info = databaseInfo(kb, "siblings");
  assert.equal(info.undirected, true);
  assert.equal(info.description, "Brothers and sisters");
  assert.equal(databaseInfo(kb, "parents").source, "Child (Alias)");
});

Deno.test("register writes plain keys atomically and reads back; bad fields are refused before writing", async () => {
  await using d = await tempDir();
  const kbDir = join(d.path, "kb");
  const info = registerDatabase(kbDir, "parents", join(FAMILY, "parents"), {
    description: "Who is whose parent",
  });
  assert.deepEqual(
    [info.source, info.target, info.fields, info.undirected],
    ["Child (Alias)", "Parent (Alias)", ["Type of parent"], false],
  );
  registerDatabase(kbDir, "siblings", join(FAMILY, "siblings"), { undirected: true });
  const text = Deno.readTextFileSync(join(kbDir, "config", "registry"));
  assert.match(text, /^parents:\n {2}- \/.*\/parents\n {2}- description: Who is whose parent\n/);
  assert.deepEqual([...readRegistry(kbDir).keys()], ["parents", "siblings"]);
  assert.throws(
    () => registerDatabase(kbDir, "bad", join(FAMILY, "parents"), { target: "Nope" }),
    /No target field "Nope" in .*parents" \(fields: Child \(Alias\), Parent \(Alias\), Type of parent\)/,
  );
  assert.throws(
    () => registerDatabase(kbDir, "a b", join(FAMILY, "parents")),
    /Invalid database name/,
  );
  assert.deepEqual([...readRegistry(kbDir).keys()], ["parents", "siblings"]);
  // a round trip keeps every entry
  const reg = readRegistry(kbDir);
  writeRegistry(kbDir, reg);
  assert.deepEqual(readRegistry(kbDir), reg);
});

Deno.test("the registry is YAML 1.1 as Ruby's Psych reads it: `yes` is true, a `no` string is written quoted (R80-3)", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "config"));
  writeFileSync(
    join(d.path, "config", "registry"),
    `:parents:\n- ${FAMILY}/parents\n- :undirected: yes\n`,
  );
  assert.equal(readRegistry(d.path).get("parents")!.options.undirected, true);
  writeRegistry(d.path, new Map([["no", { file: "off", options: { description: "On" } }]]));
  const text = Deno.readTextFileSync(join(d.path, "config", "registry"));
  assert.equal(text, '"no":\n  - "off"\n  - description: "On"\n');
  assert.deepEqual(readRegistry(d.path).get("no"), { file: "off", options: { description: "On" } });
});

Deno.test("descriptions: registered, then <db>.md, then the README section (KB dir, then beside the TSV)", async () => {
  await using d = await tempDir();
  const entry = { file: join(FAMILY, "parents"), options: {} };
  assert.equal(
    databaseDescription(d.path, "parents", entry, entry.file),
    "Children and their parents.\n\nType of parent: father or mother",
  );
  writeFileSync(join(d.path, "README.md"), "KB\n\n# Parents\n\nFrom the KB readme\n");
  assert.equal(databaseDescription(d.path, "parents", entry, entry.file), "From the KB readme");
  writeFileSync(join(d.path, "parents.md"), "From parents.md\n");
  assert.equal(databaseDescription(d.path, "parents", entry, entry.file), "From parents.md\n");
  assert.equal(
    databaseDescription(d.path, "parents", { ...entry, options: { description: "Reg" } }, null),
    "Reg",
  );
  assert.equal(databaseDescription(d.path, "other", undefined, null), null);
  assert.deepEqual([...readmeSections("x\n# A\n\n a \n# B\n\n# C\nc").entries()], [["a", "a"], [
    "c",
    "c",
  ]]);
});

Deno.test("TokyoCabinet-only databases are listed but never read; malformed registries name the file", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "old.database"), "TC binary");
  const kb = openKnowledgeBase(d.path);
  assert.deepEqual(databaseNames(kb), ["old"]);
  assert.throws(() => databaseInfo(kb, "old"), /exists only as Scout's TokyoCabinet file/);
  assert.throws(() => databaseInfo(kb, "nope"), /Unknown database "nope" .*\(databases: old\)/);
  mkdirSync(join(d.path, "config"));
  writeFileSync(join(d.path, "config", "registry"), "a: b: c\n");
  assert.throws(() => readRegistry(d.path), (e: Error & { file?: string }) => {
    assert.match(e.message, /Cannot read the knowledge-base registry "[^"]+": [^\n]*[a-z\]]$/);
    assert.equal(e.file, join(d.path, "config", "registry"));
    assert.equal((e as { line?: number }).line, 1);
    return true;
  });
});
