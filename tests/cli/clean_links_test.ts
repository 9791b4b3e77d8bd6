/**
 * The cleaning commands in a store another member (B) can write, run by A
 * (R125): a symbolic link B plants — a workflow or task directory, a store
 * part (`tmp/persist_locks`, `var/cache/ask`), or a directory swapped for a
 * link between the scan and the removal — never makes A's clean remove A's
 * files outside the store; a file in a lock directory that is no lock is
 * not swept. The links A made stay followed (README: `SCOUT_HOME` a link, a
 * shared `tmp/persist_locks` linked from each home). When the tests run as
 * root, B's links are `nobody`'s (lchown); else they are this user's, and
 * only what does not depend on their owner is checked.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { DAY, plant, putAged, ROOT_USER } from "../support/planted.ts";
import { scanStore } from "../../src/workflow/store_scan.ts";
import { cleanStore } from "../../src/workflow/store_clean.ts";

function env(dir: string, home = join(dir, "scout")) {
  return { cwd: dir, env: { SCOUT_HOME: home, HOME: join(dir, "a"), NO_COLOR: "1" } };
}

Deno.test("system clean: a workflow or task directory that is another user's link is not followed (R125-1)", async () => {
  // a link this user made is followed (the next test): B's must be another user's
  assert.ok(ROOT_USER, "needs root, to give the planted links to another user (lchown)");
  await using d = await tempDir();
  const jobs = join(d.path, "scout", "var", "jobs");
  const thesis = putAged(join(d.path, "a", "projects", "thesis.tex"), "A's thesis", 200);
  const data = putAged(join(d.path, "a", "data", "run1", "out.csv"), "A's data", 200);
  const job = putAged(join(jobs, "Real", "t", "Default"), "a result", 200);
  plant(join(d.path, "a"), join(jobs, "Evil"));
  plant(join(d.path, "a", "data"), join(jobs, "Wf2", "tlink"));
  const r = await runMain(["system", "clean", "all", "--older", "30d"], env(d.path));
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(thesis), "A's file through a linked workflow directory stays");
  assert.ok(existsSync(data), "A's file through a linked task directory stays");
  assert.equal(existsSync(job), false, "a job of the store still goes");
  assert.match(r.stderr, new RegExp(`not following ${join(jobs, "Evil")}: `));
  assert.match(r.stderr, new RegExp(`not following ${join(jobs, "Wf2", "tlink")}: `));
  assert.doesNotMatch(r.stdout, /thesis|out\.csv/);
});

Deno.test("system clean: a workflow directory that is A's own link (jobs on scratch) is cleaned through it", async () => {
  await using d = await tempDir();
  const jobs = join(d.path, "scout", "var", "jobs");
  const scratch = join(d.path, "scratch", "Big");
  const old = putAged(join(scratch, "t", "Default"), "an old result", 200);
  const info = putAged(join(scratch, "t", "Default.info"), '{"status":"done"}', 200);
  const fresh = putAged(join(scratch, "t", "fresh"), "a new result", 0);
  mkdirSync(jobs, { recursive: true });
  symlinkSync(scratch, join(jobs, "Big")); // A's own link: followed
  const r = await runMain(["system", "clean", "Big", "--older", "30d"], env(d.path));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(old), false, "the old job through A's own link goes");
  assert.equal(existsSync(info), false);
  assert.ok(existsSync(fresh), "a fresh job stays");
  assert.doesNotMatch(r.stderr, /not following/);
  assert.ok(existsSync(scratch), "the link's target directory stays");
});

Deno.test("system clean: a task directory swapped for a link after the scan is refused, not followed (R125-1)", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  const job = putAged(join(root, "Wf", "t", "Default"), "a result", 200);
  putAged(job + ".info", JSON.stringify({ status: "done" }), 200);
  const victim = putAged(join(d.path, "a", "Default"), "A's file of the job's name", 200);
  const victimInfo = putAged(join(d.path, "a", "Default.info"), "A's other file", 200);
  const jobs = scanStore([root], { workflows: null, tasks: null });
  assert.equal(jobs.length, 1);
  // B: the task directory moved aside, a link to A's files in its place
  renameSync(join(root, "Wf", "t"), join(root, "Wf", "t.aside"));
  symlinkSync(join(d.path, "a"), join(root, "Wf", "t"));
  const out = await cleanStore(jobs, {
    olderMs: 30 * DAY,
    keep: new Set(),
    lockDir: join(d.path, "locks"),
  });
  assert.ok(existsSync(victim) && existsSync(victimInfo), "A's files stay");
  assert.equal(out.removed.length, 0);
  assert.equal(out.failed.length, 1);
  assert.match(out.failed[0]!.error, /^Refused to remove files in /);
  assert.ok(existsSync(join(root, "Wf", "t.aside", "Default")), "nothing removed at all");
});

Deno.test("system clean: stale locks are swept only in the lock directory A chose, only lock files (R125-2)", async () => {
  await using d = await tempDir();
  const host = Deno.hostname();
  const lockText = `host: ${host}\npid: ${
    2 ** 22 + 5
  }\nppid: 1\ntime: 2020-01-01 00:00:00.000000\n`;
  // B's link in place of the store's persist_locks, to A's project
  const proj = join(d.path, "a", "proj");
  const cargo = putAged(join(proj, "Cargo.lock"), "# This file is automatically @generated\n", 10);
  const flake = putAged(join(proj, "flake.lock"), '{"nodes": {}}\n', 10);
  const lockLike = putAged(join(proj, "old.lock"), lockText, 10);
  mkdirSync(join(d.path, "scout", "tmp"), { recursive: true });
  plant(proj, join(d.path, "scout", "tmp", "persist_locks"));
  const r = await runMain(["system", "clean"], env(d.path));
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(cargo) && existsSync(flake), "files that are no lock stay");
  if (ROOT_USER) {
    assert.ok(existsSync(lockLike), "nothing is swept through B's link");
    assert.match(r.stderr, /not following .*persist_locks: a symbolic link made by another user/);
  }

  // A's own setup (README): SCOUT_HOME a link, tmp/persist_locks A's link to a shared directory
  const shared = join(d.path, "shared-locks");
  const stale = putAged(join(shared, "x.persist.lock"), lockText, 1);
  const empty = putAged(join(shared, "y.persist.lock"), "", 1);
  const notes = putAged(join(shared, "notes.lock"), "not a lock", 1);
  mkdirSync(join(d.path, "mine", "tmp"), { recursive: true });
  symlinkSync(shared, join(d.path, "mine", "tmp", "persist_locks"));
  symlinkSync(join(d.path, "mine"), join(d.path, "home-link"));
  const own = await runMain(["system", "clean"], env(d.path, join(d.path, "home-link")));
  assert.equal(own.code, 0, own.stderr);
  assert.equal(existsSync(stale), false, "a stale lock goes through A's own links");
  assert.equal(existsSync(empty), false, "so does an empty one (ours, cut short)");
  assert.ok(existsSync(notes), "a file that is no lock stays");
  assert.doesNotMatch(own.stderr, /not following/);
});

Deno.test("llm cache clean: a cache directory that is B's link is not cleaned; no lock is swept that is no lock (R125-3)", async () => {
  await using d = await tempDir();
  const results = join(d.path, "a", "results");
  const mine = ["2023.json", "2024.json", "1.json", "42.json", "cafe.json"]
    .map((n) => putAged(join(results, n), "{}", 200));
  const notes = putAged(join(results, "notes.lock"), "A's notes", 10);
  mkdirSync(join(d.path, "scout", "var", "cache"), { recursive: true });
  plant(results, join(d.path, "scout", "var", "cache", "ask"));
  if (ROOT_USER) {
    const r = await runMain(["llm", "cache", "clean", "--older", "90d"], env(d.path));
    assert.equal(r.code, 0, r.stderr);
    for (const f of mine) assert.ok(existsSync(f), f);
    assert.deepEqual(readdirSync(results).sort(), [
      "1.json",
      "2023.json",
      "2024.json",
      "42.json",
      "cafe.json",
      "notes.lock",
    ]);
    assert.match(r.stderr, /not following .*ask: a symbolic link made by another user/);
  }
  // without --older, through a link A made (or in the cache itself): a lock that is no lock stays
  const own = join(d.path, "own");
  const torn = putAged(join(own, `${"c".repeat(64)}.lock`), "", 1);
  const own2 = putAged(join(own, "notes.lock"), "A's notes", 10);
  mkdirSync(join(d.path, "home2", "var", "cache"), { recursive: true });
  symlinkSync(own, join(d.path, "home2", "var", "cache", "ask"));
  const r2 = await runMain(["llm", "cache", "clean"], env(d.path, join(d.path, "home2")));
  assert.equal(r2.code, 0, r2.stderr);
  assert.ok(existsSync(notes) && existsSync(own2), "files that are no lock stay");
  assert.equal(existsSync(torn), false, "an empty lock (ours, cut short) goes");
});
