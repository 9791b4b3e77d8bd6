/**
 * `kb register` run by several processes at once on one knowledge base
 * (R76-3): the registry's read-modify-write is done under a lock file, so
 * every database registered is kept; a lock left by a dead process is taken
 * over.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { readRegistry } from "../../src/kb/registry.ts";
import { registerDatabase } from "../../src/kb/resolve.ts";
import { ROOT, runScout, tempDir } from "../support/cli.ts";

const FAMILY = join(ROOT, "fixtures", "kb", "family");

Deno.test("kb register: 8 processes at once on one knowledge base keep all 8 databases", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb6");
  const runs = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) =>
        runScout(["kb", "register", kb, `db${i}`, join(FAMILY, "parents")], { cwd: d.path }),
    ),
  );
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  // before: only some of them (each process rewrote the registry it had read)
  assert.deepEqual(
    [...readRegistry(kb).keys()].sort(),
    Array.from({ length: 8 }, (_, i) => `db${i}`),
  );
  assert.equal(existsSync(join(kb, "config", "registry.lock")), false, "the lock is released");
});

Deno.test("kb register: a registry lock left by a dead process is taken over", async () => {
  await using d = await tempDir();
  const kb = join(d.path, "kb");
  mkdirSync(join(kb, "config"), { recursive: true });
  // a pid that has exited
  const child = new Deno.Command("sh", { args: ["-c", "echo $$"], stdout: "piped" }).outputSync();
  const pid = Number(new TextDecoder().decode(child.stdout).trim());
  writeFileSync(join(kb, "config", "registry.lock"), `${pid}@${hostname()}`);
  registerDatabase(kb, "parents", join(FAMILY, "parents"));
  assert.deepEqual([...readRegistry(kb).keys()], ["parents"]);
  assert.equal(existsSync(join(kb, "config", "registry.lock")), false);
});
