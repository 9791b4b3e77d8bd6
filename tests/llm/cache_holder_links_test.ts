/**
 * The holders' directory of a shared cache (`$SCOUT_HOME/var/cache/ask/.holders`,
 * `src/llm/cache_holder.ts`), which the store's group may write (R125): a
 * symbolic link another member (B) puts in its place, or in place of A's
 * holder file, never makes A's ask or `llm cache clean` create, remove or
 * touch A's own files outside the store. When the tests run as root, B's
 * links are `nobody`'s (lchown): a link A made is followed.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { withKeyLock } from "../../src/llm/cache_lock.ts";
import { beat } from "../../src/llm/cache_heartbeat.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { plant, putAged, ROOT_USER } from "../support/planted.ts";

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 2 ** 22 + 7;

/** A's files named as holders are: an old one of another host, a dead pid's of this one. */
function holderLike(dir: string): string[] {
  return [
    putAged(join(dir, "12@oldhost"), "A's 12@oldhost", 200),
    putAged(join(dir, `${DEAD_PID}@${hostname()}`), "A's file", 1),
  ];
}

Deno.test("an ask's key lock never follows B's link in place of .holders into A's files (R125)", async () => {
  assert.ok(ROOT_USER, "needs root, to give the planted link to another user (lchown)");
  await using d = await tempDir();
  const mine = join(d.path, "a", "mine");
  const files = holderLike(mine);
  const dir = join(d.path, "scout", "var", "cache", "ask");
  plant(mine, join(dir, ".holders"));
  await withKeyLock(dir, "k", (commit) => commit("x"));
  assert.equal(Deno.readTextFileSync(join(dir, "k.json")), "x", "stored, under a created lock");
  // before: both swept from A's directory, and A's holder file made there
  assert.deepEqual(readdirSync(mine).sort(), files.map((f) => f.slice(mine.length + 1)).sort());
  assert.deepEqual(readdirSync(dir).sort(), [".holders", "k.json"]);
});

Deno.test("llm cache clean never follows B's link in place of .holders into A's files (R125)", async () => {
  assert.ok(ROOT_USER, "needs root, to give the planted link to another user (lchown)");
  await using d = await tempDir();
  const mine = join(d.path, "a", "mine");
  const files = holderLike(mine);
  const dir = join(d.path, "scout", "var", "cache", "ask");
  const old = putAged(join(dir, `${"ab".repeat(32)}.json`), "{}", 200);
  plant(mine, join(dir, ".holders"));
  const r = await runMain(["llm", "cache", "clean", "--older", "90d"], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "scout"), HOME: join(d.path, "a"), NO_COLOR: "1" },
  });
  assert.match(r.stdout, /1 of 1 entry removed/, r.stderr);
  assert.equal(existsSync(old), false, "the old entry goes, under a created lock");
  // the clean's sweep of dead holders does not follow B's link, and says so once: no failure
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /not following \S+\/\.holders: a symbolic link made by another user \(uid \d+\) in the store; dead processes' holder files are not swept\n/,
  );
  assert.doesNotMatch(r.stderr, /cannot remove|12@oldhost/);
  // before: both swept from A's directory by the holder made for the entry's lock
  assert.deepEqual(readdirSync(mine).sort(), files.map((f) => f.slice(mine.length + 1)).sort());
});

Deno.test("the heartbeat never touches A's file through a link put in place of A's holder file (R125)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "scout", "var", "cache", "ask");
  const thesis = putAged(join(d.path, "a", "thesis.tex"), "A's thesis", 200);
  const before = Deno.statSync(thesis).mtime!.getTime();
  await withKeyLock(dir, "k", async (commit) => {
    // B (the holders' directory is the group's) swaps A's holder for a link to A's file
    const holder = join(dir, ".holders", `${Deno.pid}@${hostname()}`);
    Deno.removeSync(holder);
    plant(thesis, holder);
    beat();
    await commit("x");
  });
  // before: its modification time became now (utimes followed the link)
  assert.equal(Deno.statSync(thesis).mtime!.getTime(), before);
  assert.equal(Deno.readTextFileSync(thesis), "A's thesis");
});
