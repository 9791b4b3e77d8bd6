/**
 * Locks on a full disk (R92-1, R92-2): the lock file is created (a full disk
 * keeps free inodes) but its holder text cannot be written. The lock made is
 * removed, so the next run after space is freed takes it at once instead of
 * waiting 30 s for an empty lock to go stale, and the error names the lock.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireLock, acquireLockFile } from "../../src/workflow/lock.ts";
import { withFileLockSync } from "../../src/util/file_lock.ts";
import { fullDisk } from "../support/full_disk.ts";
import { tempDir } from "../support/cli.ts";

Deno.test({
  name: "persist lock: a full disk leaves no empty lock; the error names it (R92-1, R92-2)",
  fn: async () => {
    await using disk = await fullDisk((p) => mkdirSync(join(p, "locks")));
    const locks = join(disk.path, "locks");
    const job = join(disk.path, "jobs", "WF", "cake", "Default");
    await assert.rejects(
      acquireLock(job, locks, { timeoutMs: 0 }),
      (e: Error) => {
        assert.match(
          e.message,
          /^Cannot write the lock ".*persist\.lock": no space left on device$/,
        );
        assert.equal((e.cause as NodeJS.ErrnoException).code, "ENOSPC");
        return true;
      },
    );
    assert.deepEqual(readdirSync(locks), [], "no empty lock left");
    disk.free();
    const t0 = Date.now();
    (await acquireLock(job, locks, { timeoutMs: 5_000 })).release();
    assert.ok(Date.now() - t0 < 2_000, "taken at once once space is freed");
  },
});

Deno.test({
  name: "file lock: a full disk leaves no empty lock; the error names it (R92-1, R92-2)",
  fn: async () => {
    await using disk = await fullDisk();
    const file = join(disk.path, "registry");
    assert.throws(
      () => withFileLockSync(file, () => 1, 200),
      /^ScoutError: Cannot write the lock ".*registry\.lock": no space left on device$/,
    );
    assert.deepEqual(readdirSync(disk.path).filter((n) => n !== ".filler"), []);
    disk.free();
    const t0 = Date.now();
    assert.equal(withFileLockSync(file, () => 1, 5_000), 1);
    assert.ok(Date.now() - t0 < 2_000, "taken at once once space is freed");
  },
});

Deno.test("a lock that cannot be created names its path once (R92-6)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, "file"), "x"); // a path through a file: ENOTDIR, also as root
  const once = (lock: string) => (e: Error) => {
    assert.equal(e.message.split(lock).length, 2, e.message);
    assert.match(e.message, /^Cannot create the lock ".*": a part of the path is not a directory$/);
    return true;
  };
  const lock = join(d.path, "file", "x.persist.lock");
  await assert.rejects(acquireLockFile(lock), once(lock));
  const file = join(d.path, "file", "registry");
  assert.throws(() => withFileLockSync(file, () => 1), once(`${file}.lock`));
});
