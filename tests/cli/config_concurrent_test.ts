/**
 * Concurrent `config set`/`config unset` processes on one config: each
 * read-modify-write holds `etc/config.lock`, so none loses another's entry
 * while reporting success (R91-4). Real processes, started at once.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";

const N = 12;

Deno.test("concurrent config set and unset processes lose no entry (R91-4)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const config = join(home, "etc", "config");
  mkdirSync(join(home, "etc"), { recursive: true });
  const old = Array.from({ length: N }, (_, i) => `old${i}`);
  writeFileSync(config, old.map((k) => `${k} x ask\n`).join(""));
  const env = { SCOUT_HOME: home, HOME: home };
  const runs = await Promise.all([
    ...old.map((k) => runScout(["config", "unset", k, "ask"], { env, cwd: d.path })),
    ...Array.from(
      { length: N },
      (_, i) => runScout(["config", "set", `key${i}`, `v${i}`, "ask"], { env, cwd: d.path }),
    ),
  ]);
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const lines = readFileSync(config, "utf8").split("\n").filter((l) => l !== "").sort();
  const want = Array.from({ length: N }, (_, i) => `key${i} v${i} ask`).sort();
  assert.deepEqual(lines, want);
});
