/**
 * A registry that cannot be looked at is an error naming it, never an empty
 * knowledge base (R112-3): a shared knowledge base root made with umask 077
 * (`config/` 0700), queried by another user in a real `scout-ai` subprocess
 * (as `nobody` when root, else with `config/` made 000); a registry, README
 * or registered TSV path that is a symbolic link loop (any user).
 */
import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { databaseInfo, openKnowledgeBase } from "../../src/kb/database.ts";
import { registryPath } from "../../src/kb/registry.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { AS_NOBODY, runAsNobody } from "../support/nobody.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("another user's registry behind a 0700 config/: kb query and kb list fail naming it (R112-3)", async () => {
  await using d = await tempDir();
  chmodSync(d.path, 0o755);
  const kb = join(d.path, "kb");
  cpSync(FAMILY, kb, { recursive: true, filter: (src) => !src.includes(".scout-ai-index") });
  const home = join(d.path, "home");
  mkdirSync(home);
  chmodSync(home, 0o777);
  const config = join(kb, "config");
  chmodSync(config, AS_NOBODY ? 0o700 : 0o000); // root's, umask 077; or not even this user's
  try {
    const env = { SCOUT_HOME: home };
    const denied = `scout-ai: Cannot look at the knowledge-base registry "${
      registryPath(kb)
    }": permission denied\n`;
    const q = await runAsNobody(["kb", "query", kb, "parents", "Ada"], d.path, env);
    // before: `Unknown database "parents" in knowledge base "…" (it has no databases)`
    assert.equal(q.code, 1);
    assert.equal(q.stderr, denied);
    const l = await runAsNobody(["kb", "list", kb], d.path, env);
    // before: exit 0, `No databases in "…" (register one with 'scout-ai kb register')`
    assert.equal(l.code, 1);
    assert.equal(l.stderr, denied);
    assert.equal(l.stdout, "");
  } finally {
    chmodSync(config, 0o755);
  }
});

Deno.test("a registry that is a symbolic link loop is an error, not an empty knowledge base (R112-3)", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "config"));
  symlinkSync("registry", registryPath(d.path));
  const r = await runMain(["kb", "list", d.path], { env: { NO_COLOR: "1" } });
  // before: exit 0, `No databases in "…"`
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `scout-ai: Cannot look at the knowledge-base registry "${
      registryPath(d.path)
    }": too many levels of symbolic links\n`,
  );
});

Deno.test("a README or a relative TSV path that cannot be looked at is named, not passed over (R112-3)", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  mkdirSync(join(kb, "config"), { recursive: true });
  cpSync(join(FAMILY, "parents"), join(kb, "parents.tsv"));
  writeFileSync(registryPath(kb), "parents:\n- parents.tsv\n- {}\nloop:\n- data/loop.tsv\n- {}\n");
  mkdirSync(join(kb, "data"));
  symlinkSync("loop.tsv", join(kb, "data", "loop.tsv"));
  const open = () => openKnowledgeBase(kb, {});
  // before: the path in the working directory, `TSV file not found "<cwd>/data/loop.tsv"`
  assert.throws(
    () => databaseInfo(open(), "loop"),
    (e: Error) =>
      e.message ===
        `Cannot look at the TSV file "${
          join(kb, "data", "loop.tsv")
        }": too many levels of symbolic links`,
  );
  assert.equal(databaseInfo(open(), "parents").file, join(kb, "parents.tsv"));
  symlinkSync("README.md", join(kb, "README.md"));
  // before: no description, said nowhere
  assert.throws(
    () => databaseInfo(open(), "parents"),
    (e: Error) =>
      e.message ===
        `Cannot look at the README "${join(kb, "README.md")}": too many levels of symbolic links`,
  );
});
