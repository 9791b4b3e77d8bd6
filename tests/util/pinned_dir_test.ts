/**
 * Removing by name in a directory entered and checked (R125): a swap of the
 * directory for a link after it is entered changes nothing of what goes; a
 * directory swapped before is refused; a link is removed, never followed.
 * And the real path of a store part: another user's link is met, not
 * followed, also inside the path a followed link points to.
 */
import assert from "node:assert/strict";
import { existsSync, lchownSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { inRealDir, removeHere } from "../../src/util/pinned_dir.ts";
import { storePart } from "../../src/util/owned_links.ts";

Deno.test("removeHere: by name in the directory entered, whatever is swapped in after; links not followed", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "store", "t");
  mkdirSync(join(dir, "job.files", "sub"), { recursive: true });
  writeFileSync(join(dir, "job"), "result");
  writeFileSync(join(dir, "job.files", "sub", "x"), "x");
  const victim = join(d.path, "a");
  mkdirSync(join(victim, "sub"), { recursive: true });
  for (const f of ["job", "keep", "sub/x"]) writeFileSync(join(victim, f), "A's");
  symlinkSync(victim, join(dir, "job.files", "link"));
  inRealDir(dir, (here) => {
    renameSync(dir, dir + ".aside"); // B, after the check: the path now leads to A's files
    symlinkSync(victim, dir);
    removeHere("job", here);
    removeHere("job.files", here);
  });
  assert.ok(existsSync(join(victim, "job")) && existsSync(join(victim, "sub", "x")));
  assert.equal(existsSync(join(dir + ".aside", "job")), false);
  assert.equal(existsSync(join(dir + ".aside", "job.files")), false);
  assert.throws(
    () => inRealDir(dir, (here) => removeHere("keep", here)),
    /Refused to remove files in /,
  );
  assert.ok(existsSync(join(victim, "keep")));
});

Deno.test("storePart: the user's links followed, another user's met and named", async () => {
  await using d = await tempDir();
  const shared = join(d.path, "shared", "locks");
  mkdirSync(shared, { recursive: true });
  mkdirSync(join(d.path, "home", "tmp"), { recursive: true });
  symlinkSync(join(d.path, "shared", "locks"), join(d.path, "home", "tmp", "persist_locks"));
  symlinkSync(join(d.path, "home"), join(d.path, "home-link"));
  assert.deepEqual(storePart(join(d.path, "home-link"), ["tmp", "persist_locks"]), {
    real: shared,
  });
  assert.deepEqual(storePart(join(d.path, "home"), ["var", "jobs"]), { missing: true });
  if (Deno.uid() !== 0) return; // another user's link needs root to make
  // B swaps the shared directory the user's own link points to
  renameSync(shared, shared + ".real");
  symlinkSync(join(d.path, "home"), shared);
  lchownSync(shared, 65534, 65534);
  assert.deepEqual(storePart(join(d.path, "home-link"), ["tmp", "persist_locks"]), {
    link: shared,
    owner: 65534,
  });
});
