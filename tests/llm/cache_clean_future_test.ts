/**
 * A cache entry dated beyond the clock skew ahead (R163-2), judged by a
 * clean whose clock is moved: it goes once its last change (ctime) is older
 * than `--older`, and while that change too lies beyond the skew ahead, its
 * age is unknown and it stays, saying so. What the command prints:
 * tests/cli/clean_future_dates_test.ts.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanCache } from "../../src/llm/cache_clean.ts";
import { tempDir } from "../support/cli.ts";

const HOUR = 3_600_000;

Deno.test("cleanCache: an entry dated beyond the skew ahead goes once its last change is older than --older", async () => {
  await using d = await tempDir();
  const file = join(d.path, "ab12.json");
  writeFileSync(file, "{}\n");
  const future = new Date("2030-01-01T00:00:00Z");
  Deno.utimeSync(file, future, future);
  const clean = (now: number) =>
    cleanCache(d.path, { olderMs: HOUR, dryRun: true, now, holdersDir: null });

  const later = await clean(Date.now() + 2 * HOUR);
  assert.deepEqual(later.removed.map((e) => e.file), [file]);
  assert.ok(Math.abs(later.removed[0]!.lastUsedMs - Date.now()) < 60_000, "its last change");
  assert.deepEqual(later.kept, []);

  const earlier = await clean(Date.now() - HOUR);
  assert.deepEqual(earlier.removed, []);
  assert.deepEqual(earlier.kept, [{
    file,
    reason:
      "dated in the future (2030-01-01T00:00:00.000Z, more than 10m ahead of this host's clock), its last change too: its age is unknown",
  }]);
});
