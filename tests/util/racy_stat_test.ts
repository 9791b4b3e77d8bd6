/**
 * The racy-stat rule (`src/util/racy_stat.ts`): stats vouch for a file left
 * unchanged for `RACY_MS` before its read (R89-2). A modification time in the
 * future (set by `touch -d`, `tar x`, `rsync -a`) is judged by the change
 * time instead (R112-2): before, it never vouched. A change time ahead of the
 * clock (a file server's clock ahead of this one's) never vouches.
 */
import assert from "node:assert/strict";
import { changedAhead, RACY_MS, statsVouch } from "../../src/util/racy_stat.ts";

const NOW = Date.UTC(2025, 0, 1);
const OLD = NOW - 60_000;
const FUTURE = Date.UTC(2027, 5, 1);

Deno.test("statsVouch: a file changed long before its read vouches; one changed within RACY_MS does not", () => {
  assert.equal(statsVouch(NOW, { mtimeMs: OLD, ctimeMs: OLD }), true);
  assert.equal(statsVouch(NOW, { mtimeMs: NOW - RACY_MS, ctimeMs: OLD }), false, "mtime young");
  assert.equal(statsVouch(NOW, { mtimeMs: OLD, ctimeMs: NOW - 500 }), false, "ctime young");
  // a ctime in whole seconds (Deno) below a finer mtime: the mtime counts
  assert.equal(statsVouch(NOW, { mtimeMs: NOW - 1_500, ctimeMs: NOW - 2_001 }), false);
});

Deno.test("statsVouch: a future mtime is judged by the ctime (before: never vouched)", () => {
  assert.equal(statsVouch(NOW, { mtimeMs: FUTURE, ctimeMs: OLD }), true);
  assert.equal(statsVouch(NOW, { mtimeMs: FUTURE, ctimeMs: NOW - 500 }), false, "set just now");
  assert.equal(
    statsVouch(NOW, { mtimeMs: NOW + 5, ctimeMs: NOW + 5 }),
    false,
    "changed after the read began",
  );
  assert.equal(statsVouch(NOW, { mtimeMs: FUTURE, ctimeMs: FUTURE }), false, "a clock ahead");
});

Deno.test("changedAhead: a ctime more than RACY_MS ahead of the clock", () => {
  assert.equal(changedAhead(NOW, { ctimeMs: NOW + RACY_MS + 1 }), true);
  assert.equal(changedAhead(NOW, { ctimeMs: NOW + RACY_MS }), false);
  assert.equal(changedAhead(NOW, { ctimeMs: OLD }), false);
});
