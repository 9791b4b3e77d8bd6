/**
 * A registry holding a database Ruby registered from a block (R112-1):
 * Ruby's `KnowledgeBase#save` writes `[block, options]`, the block dumped
 * as `!ruby/object:Proc {}`. That entry is unreadable here (listed as such,
 * an error naming its registry line when queried, skipped with a warning by
 * a `kb:` line) and the other databases work; registering another database
 * writes the Ruby entry back byte for byte.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRegistry, registryPath, writeRegistry } from "../../src/kb/registry.ts";
import { ROOT, runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

/** A Ruby 3.1 block entry as `KnowledgeBase#save` writes it (symbol keys). */
const BLOCK_ENTRY = ":blocky:\n- !ruby/object:Proc {}\n- :undirected: true\n  :source: Gene\n";

function rubyRegistry(dir: string): string {
  const kb = join(dir, "bk");
  mkdirSync(join(kb, "config"), { recursive: true });
  writeFileSync(
    registryPath(kb),
    `---\n:parents:\n- "${FAMILY}/parents"\n- {}\n${BLOCK_ENTRY}:siblings:\n- ${FAMILY}/siblings\n- :undirected: true\n`,
  );
  return kb;
}

Deno.test("kb list, query and register with a Ruby block entry: it is unreadable, the others work (R112-1)", async () => {
  await using d = await tempDir();
  const kb = rubyRegistry(d.path);
  const o = { cwd: d.path, env: { NO_COLOR: "1" } };
  const where = `(${registryPath(kb)}:5)`;
  // before: every command stopped at `Database "blocky" … is not registered from a file`
  const l = await runMain(["kb", "list", kb], o);
  assert.equal(l.code, 1, l.stderr);
  assert.equal(
    l.stdout,
    "parents   Child (Alias) -> Parent (Alias)  [Type of parent]\n" +
      `blocky    unreadable: Database "blocky" is not registered from a file (a Ruby block?): ` +
      `it cannot be read here ${where}\n` +
      "siblings  Older (Alias) <-> Younger (Alias)\n",
  );
  const q = await runMain(["kb", "query", kb, "parents", "Ada"], o);
  assert.equal(q.code, 0, q.stderr);
  assert.equal(q.stdout, "Ada~Bruno\tfather\nAda~Carla\tmother\n");
  const b = await runMain(["kb", "query", kb, "blocky", "Ada"], o);
  assert.equal(b.code, 1);
  assert.equal(
    b.stderr,
    `scout-ai: Database "blocky" is not registered from a file (a Ruby block?): it cannot be read here ${where}\n`,
  );

  const r = await runMain(["kb", "register", kb, "wed", join(FAMILY, "marriages")], o);
  assert.equal(r.code, 0, r.stderr);
  const text = readFileSync(registryPath(kb), "utf8");
  assert.ok(text.includes(`\n${BLOCK_ENTRY}siblings:\n`), text); // as Ruby wrote it
  assert.deepEqual([...readRegistry(kb).keys()], ["parents", "blocky", "siblings", "wed"]);
  const again = await runMain(["kb", "list", kb], o);
  assert.match(again.stdout, /^blocky {4}unreadable: .*:4\)$/m);
  assert.match(again.stdout, /^wed {7}Husband \(Alias\) -> Wife \(Alias\)/m);
  // registering the block's name replaces it
  await runMain(["kb", "register", kb, "blocky", join(FAMILY, "parents")], o);
  assert.doesNotMatch(readFileSync(registryPath(kb), "utf8"), /Proc/);
  assert.equal((await runMain(["kb", "list", kb], o)).code, 0);
});

Deno.test("a Ruby block entry in a flow map, or with an alias, is written back readable YAML and stays unreadable", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "config"));
  writeFileSync(
    registryPath(d.path),
    `{parents: ["${FAMILY}/parents", &o {undirected: false}], b: [!ruby/object:Proc {}, *o]}\n`,
  );
  const reg = readRegistry(d.path);
  writeRegistry(d.path, reg);
  const text = readFileSync(registryPath(d.path), "utf8");
  assert.match(text, /^b: \[ !ruby\/object:Proc \{\}, \{ undirected: false \} \]$/m);
  const back = readRegistry(d.path);
  assert.deepEqual(back.get("parents"), reg.get("parents"));
  assert.deepEqual({ ...back.get("b"), line: 0 }, { ...reg.get("b"), line: 0 });
  assert.deepEqual(reg.get("b")!.options, { undirected: false });
});

Deno.test("a kb: line with a Ruby block entry: named databases work, the block is skipped with a warning (R112-1)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer();
  const kb = rubyRegistry(d.path);
  const env = { SCOUT_HOME: join(d.path, "home"), OPENAI_API_KEY: "sk-kb" };
  const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const named = join(d.path, "b.chat");
  writeFileSync(named, "kb: ./bk parents\n\nuser: hi\n");
  srv.script({ text: "Hello." }, { text: "Hello again." });
  const r = await runScout([...args, "-c", named], { env, cwd: d.path });
  // before: exit 1, `scout-ai: Database "blocky" … cannot be read here`, no request
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Hello.\n");
  assert.equal(r.stderr, "");
  const all = join(d.path, "c.chat");
  writeFileSync(all, "kb: ./bk\n\nuser: hi\n");
  const a = await runScout([...args, "-c", all], { env, cwd: d.path });
  assert.equal(a.code, 0, a.stderr);
  const tools = (srv.requests[1]!.body.tools as { function: { name: string } }[])
    .map((t) => t.function.name);
  assert.deepEqual(tools, ["parents", "parents_association_details", "siblings"]);
  assert.equal(
    a.stderr,
    `scout-ai: warning: database "blocky" of knowledge base "${kb}" skipped: Database "blocky" ` +
      `is not registered from a file (a Ruby block?): it cannot be read here (${
        registryPath(kb)
      }:5)\n`,
  );
});
