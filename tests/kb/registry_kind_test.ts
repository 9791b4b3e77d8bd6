/**
 * Knowledge-base files of the wrong kind (R142-5; `docs/spec-notes/agents-kb.md`
 * "Only a missing registry (ENOENT, ENOTDIR) means a knowledge base without
 * databases"): a `config/registry` that is a directory fails `kb list`
 * naming it; a registered relative TSV path that is a directory or a link
 * to nothing is an error naming it, not looked for in the working directory
 * (that fallback is for a missing file, Ruby's). A registry that is a link
 * to nothing is a registry not made yet: `kb register` writes through it.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { databaseInfo, openKnowledgeBase } from "../../src/kb/database.ts";
import { databaseFile, registryPath } from "../../src/kb/registry.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("a registry that is a directory fails kb list naming it, not 'No databases' (R142-5)", async () => {
  await using d = await tempDir();
  mkdirSync(registryPath(d.path), { recursive: true });
  const r = await runMain(["kb", "list", d.path], {
    env: { NO_COLOR: "1", SCOUT_HOME: join(d.path, "home") },
    cwd: d.path,
  });
  // before: exit 0, `No databases in "…"`
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `scout-ai: Cannot look at the knowledge-base registry "${
      registryPath(d.path)
    }": it is a directory, not a file\n`,
  );
});

Deno.test("a relative TSV path that is a directory or a link to nothing is named, not looked for in the cwd (R142-5)", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  mkdirSync(join(kb, "config"), { recursive: true });
  mkdirSync(join(kb, "dir.tsv"));
  symlinkSync(join(d.path, "gone.tsv"), join(kb, "gone.tsv"));
  writeFileSync(
    registryPath(kb),
    "dir:\n- dir.tsv\n- {}\ngone:\n- gone.tsv\n- {}\nmissing:\n- missing.tsv\n- {}\n",
  );
  // no chdir: the working directory is the process's, shared by the suite's parallel test
  // files (a chdir into this temp directory, removed afterwards, broke every later test)
  {
    const info = (name: string) => databaseInfo(openKnowledgeBase(kb, {}), name);
    assert.throws(
      () => info("dir"),
      (e: Error) =>
        e.message ===
          `Cannot look at the TSV file "${join(kb, "dir.tsv")}": it is a directory, not a file`,
    );
    assert.throws(
      () => info("gone"),
      (e: Error) =>
        e.message ===
          `Cannot look at the TSV file "${join(kb, "gone.tsv")}": it is a symbolic link to nothing`,
    );
    // a missing one: Ruby's fallback to the working directory, kept
    const fallback = databaseFile(kb, "missing.tsv"); // where it is looked for (not read)
    assert.ok(isAbsolute(fallback) && fallback.endsWith("/missing.tsv"), fallback);
    assert.ok(!fallback.startsWith(kb), fallback);
  }
});

Deno.test("a registry that is a link to nothing is one not made yet: kb register writes through it", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  mkdirSync(join(kb, "config"), { recursive: true });
  const target = join(d.path, "dotfiles", "registry");
  mkdirSync(join(d.path, "dotfiles"));
  symlinkSync(target, registryPath(kb));
  cpSync(join(FAMILY, "parents"), join(kb, "parents.tsv"));
  const env = { NO_COLOR: "1", SCOUT_HOME: join(d.path, "home") };
  const r = await runMain(["kb", "register", kb, "parents", join(kb, "parents.tsv")], {
    env,
    cwd: d.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(target, "utf8"), /parents/);
});
