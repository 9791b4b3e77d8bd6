/**
 * R166-5: `llm cache clean` on a read-only cache (a shared one, another
 * user's) words a lock it cannot take as `system clean` does — not the
 * runtime's `EACCES: permission denied, open '…'` — and names the first few
 * failures, then counts the rest; exit 1. A real subprocess as another user
 * (`nobody` when the tests run as root) on a root-owned mode-555 cache.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { runAsNobody } from "../support/nobody.ts";

/** A store whose cache holds `n` entries, then made read-only (mode 555). */
function readOnlyCache(dir: string, n: number): { home: string; cache: string; keys: string[] } {
  const home = join(dir, "store");
  const cache = join(home, "var", "cache", "ask");
  mkdirSync(cache, { recursive: true });
  const keys = Array.from({ length: n }, (_, i) => `abc${i}`);
  for (const k of keys) writeFileSync(join(cache, `${k}.json`), "{}\n");
  for (const d of [cache, join(home, "var", "cache"), join(home, "var"), home, dir]) {
    chmodSync(d, 0o555);
  }
  return { home, cache, keys };
}

Deno.test("llm cache clean on a read-only cache: system clean's words, the first five, then a count", async () => {
  await using dir = await tempDir();
  const run = join(dir.path, "run");
  mkdirSync(run);
  const { home, cache, keys } = readOnlyCache(join(dir.path, "ro"), 8);
  chmodSync(dir.path, 0o755);
  try {
    const env = { SCOUT_HOME: home, HOME: run };
    const r = await runAsNobody(["llm", "cache", "clean", "--older", "0"], run, env);
    assert.equal(r.code, 1, r.stderr);
    const line = (k: string) =>
      `scout-ai: cannot remove ${join(cache, `${k}.json`)}: cannot take its lock: ` +
      `Cannot create the lock "${join(cache, `${k}.lock`)}": permission denied`;
    assert.equal(
      r.stderr,
      [
        ...keys.slice(0, 5).map(line),
        "scout-ai: … and 3 more files that cannot be removed (--json lists them all)",
        "",
      ].join("\n"),
    );
    assert.equal(
      r.stdout,
      "0 of 8 entries removed (0 B); 8 not removable; 0 stale locks, 0 dead holders, " +
        "0 temp files removed\n",
    );
    const json = await runAsNobody(["llm", "cache", "clean", "--older", "0", "--json"], run, env);
    assert.equal(json.code, 1, json.stderr);
    const failed = JSON.parse(json.stdout).failed as { file: string; error: string }[];
    assert.equal(failed.length, 8);
    assert.equal(
      failed[7]!.error,
      `cannot take its lock: Cannot create the lock "${join(cache, "abc7.lock")}": ` +
        "permission denied",
    );
  } finally {
    // writable again, outermost first, so the temp dir can be removed (a non-root run)
    for (
      const d of [join(dir.path, "ro"), home, join(home, "var"), join(home, "var", "cache"), cache]
    ) {
      chmodSync(d, 0o755);
    }
  }
});
