/**
 * What README says of a job store shared by users (R92-3): a job's persist
 * lock is named by its path as spelled under `$SCOUT_HOME/tmp/persist_locks`
 * (Scout's rule, kept so both exclude each other), so two homes, or one store
 * reached through a symbolic link, lock apart; one `persist_locks` shared by a
 * symbolic link from each home makes them take turns.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { acquireLock } from "../../src/workflow/lock.ts";
import { jobStore, lockPathFor } from "../../src/workflow/store.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("persist locks: per home and per spelling of the jobs path; a shared persist_locks excludes (R92-3)", async () => {
  await using d = await tempDir();
  const jobs = join(d.path, "group", "jobs");
  mkdirSync(jobs, { recursive: true });
  symlinkSync(jobs, join(d.path, "linked"));
  const store = (home: string, dir: string) =>
    jobStore({ env: { SCOUT_HOME: join(d.path, home) }, jobsDir: dir, cwd: d.path });
  const lockOf = (s: ReturnType<typeof store>) =>
    lockPathFor(join(s.createRoot, "WF", "cake", "Default"), s.lockDir);
  const alice = store("alice", jobs);
  assert.notEqual(lockOf(alice), lockOf(store("bob", jobs)), "another home: another lock");
  assert.notEqual(
    lockOf(alice),
    lockOf(store("alice", join(d.path, "linked"))),
    "another spelling",
  );

  // each home's persist_locks a link to one group directory: one lock, taken in turn
  const shared = join(d.path, "group", "persist_locks");
  mkdirSync(shared);
  for (const home of ["alice", "bob"]) {
    mkdirSync(join(d.path, home, "tmp"), { recursive: true });
    symlinkSync(shared, join(d.path, home, "tmp", "persist_locks"));
  }
  const [a, b] = [store("alice", jobs), store("bob", jobs)];
  const job = join(jobs, "WF", "cake", "Default");
  const held = await acquireLock(job, a.lockDir);
  // bob's first call creates his lock directory before it tries the lock: under load that
  // took over 100 ms, so the wait is awaited (a deadline), not looked for after a fixed sleep
  let waited!: () => void;
  const onWait = new Promise<"waited">((r) => waited = () => r("waited"));
  const second = acquireLock(job, b.lockDir, { onWait: () => waited() });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    onWait,
    second.then(() => "took it" as const),
    new Promise<"late">((r) => timer = setTimeout(() => r("late"), 30_000)),
  ]).finally(() => clearTimeout(timer));
  assert.equal(first, "waited", "bob waits for alice's lock");
  held.release();
  (await second).release();
});
