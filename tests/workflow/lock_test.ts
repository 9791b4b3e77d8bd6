import assert from "node:assert/strict";
import { execSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { acquireLock, isStaleLock, lockMaxAgeMs } from "../../src/workflow/lock.ts";
import { lockPathFor } from "../../src/workflow/store.ts";
import { isScoutError } from "../../src/errors.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";

Deno.test("lock: Scout's path and content; exclusive; released", async () => {
  await using d = await tempDir();
  const job = join(d.path, "jobs", "WF", "t", "Default");
  const lock = await acquireLock(job, join(d.path, "locks"));
  assert.equal(lock.path, lockPathFor(job, join(d.path, "locks")));
  assert.match(
    readFileSync(lock.path, "utf8"),
    new RegExp(
      `^host: ${hostname()}\\npid: ${Deno.pid}\\nppid: \\d+\\ntime: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{6}\\n$`,
    ),
  );
  let second = false;
  const waiting = acquireLock(job, join(d.path, "locks"), { onWait: () => second = true }).then(
    (l) => {
      assert.equal(existsSync(lock.path), true);
      return l;
    },
  );
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(second, true, "the second acquirer waits");
  lock.release();
  const l2 = await waiting;
  l2.release();
  assert.equal(existsSync(lock.path), false);
  lock.release(); // idempotent
});

Deno.test("lock: stale locks (dead pid on this host, or not refreshed for 30 s; another host's: beyond any clock skew) are swept", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "locks");
  mkdirSync(dir, { recursive: true });
  const job = join(d.path, "Default");
  const path = lockPathFor(job, dir);
  const dead = new Deno.Command("true").spawn();
  await dead.status;
  writeFileSync(
    path,
    `host: ${hostname()}\npid: ${dead.pid}\nppid: 1\ntime: 2026-01-01 00:00:00.000000\n`,
  );
  assert.equal(isStaleLock(path), true);
  (await acquireLock(job, dir)).release();
  writeFileSync(path, `host: other-host\npid: 1\nppid: 1\ntime: x\n`);
  assert.equal(isStaleLock(path), false, "another host's fresh lock is respected");
  const old = new Date(Date.now() - 31_000);
  utimesSync(path, old, old);
  assert.equal(
    isStaleLock(path),
    false,
    "its clock may be behind ours (R139-1): watched, not swept",
  );
  const longAgo = new Date(Date.now() - 3_600_000);
  utimesSync(path, longAgo, longAgo);
  assert.equal(isStaleLock(path), true);
  (await acquireLock(job, dir)).release();
  writeFileSync(path, `host: other-host\npid: 1\nppid: 1\ntime: x\n`);
  await assert.rejects(
    () => acquireLock(job, dir, { timeoutMs: 50 }),
    (e) => isScoutError(e, "lock_timeout"),
  );
});

Deno.test("lock: stale after Scout's 30 s, or SCOUT_LOCK_MAX_AGE seconds (a test's seam)", () => {
  assert.equal(lockMaxAgeMs({}), 30_000);
  assert.equal(lockMaxAgeMs({ SCOUT_LOCK_MAX_AGE: "3" }), 3_000);
  assert.equal(lockMaxAgeMs({ SCOUT_LOCK_MAX_AGE: "0.5" }), 500);
  for (const bad of ["", "0", "-1", "x"]) {
    assert.equal(lockMaxAgeMs({ SCOUT_LOCK_MAX_AGE: bad }), 30_000, bad);
  }
});

Deno.test("lock: kept fresh while this thread blocks (a worker touches it), as Scout's waiters judge it (R89-1)", async () => {
  await using d = await tempDir();
  const lock = await acquireLock(join(d.path, "Default"), join(d.path, "locks"));
  try {
    const created = statSync(lock.path).mtimeMs;
    execSync("sleep 4.5"); // blocks this thread, its timers with it
    const age = Date.now() - statSync(lock.path).mtimeMs;
    assert.ok(statSync(lock.path).mtimeMs > created, "touched while the main thread was blocked");
    assert.ok(age < 3_000, `refreshed every 2 s (last touched ${age} ms ago)`);
    assert.equal(isStaleLock(lock.path), false);
  } finally {
    lock.release();
  }
});

Deno.test("lock: release leaves a lock another process took over (R89-1)", async () => {
  await using d = await tempDir();
  const lock = await acquireLock(join(d.path, "Default"), join(d.path, "locks"));
  const theirs = `host: other-host\npid: 1\nppid: 1\ntime: 2026-01-01 00:00:00.000000\n`;
  unlinkSync(lock.path); // judged stale by a waiter, removed, and created again by it
  writeFileSync(lock.path, theirs);
  lock.release();
  assert.equal(readFileSync(lock.path, "utf8"), theirs, "the other holder's lock is left");
});

const CHILD = `
import { closeSync, openSync, unlinkSync } from "node:fs";
import { acquireLock } from "${join(ROOT, "src", "workflow", "lock.ts")}";
const [job, dir, marker, at] = Deno.args;
while (Date.now() < Number(at)) { /* spin: start together */ }
const lock = await acquireLock(job, dir);
let fd;
try { fd = openSync(marker, "wx"); } catch { console.log("OVERLAP"); }
await new Promise((r) => setTimeout(r, 30));
if (fd !== undefined) { closeSync(fd); unlinkSync(marker); }
lock.release();
`;

Deno.test("lock: processes at once on a dead holder's lock take it over one at a time, never two inside", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "locks");
  mkdirSync(dir, { recursive: true });
  const job = join(d.path, "Default");
  const script = join(d.path, "child.ts");
  writeFileSync(script, CHILD);
  for (let round = 0; round < 3; round++) {
    const dead = new Deno.Command("true").spawn();
    await dead.status;
    writeFileSync(
      lockPathFor(job, dir),
      `host: ${hostname()}\npid: ${dead.pid}\nppid: 1\ntime: 2026-01-01 00:00:00.000000\n`,
    );
    const at = String(Date.now() + 700);
    const runs = await Promise.all(Array.from({ length: 8 }, () =>
      new Deno.Command(DENO, {
        args: ["run", "-A", "--no-lock", "--no-check", script, job, dir, join(d.path, "m"), at],
        stdout: "piped",
        stderr: "piped",
      }).output()));
    for (const r of runs) {
      assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
      assert.equal(new TextDecoder().decode(r.stdout), "", `round ${round}: two inside the lock`);
    }
  }
});

Deno.test("lock: with SCOUT_LOCK_MAX_AGE above the skew bound, a live lock of this host is stale only past its own age (R144-1)", () => {
  const saved = Deno.env.get("SCOUT_LOCK_MAX_AGE");
  Deno.env.set("SCOUT_LOCK_MAX_AGE", "3600");
  try {
    const d = Deno.makeTempDirSync({ prefix: "scout-test-" });
    try {
      const path = join(d, "job.lock");
      writeFileSync(path, `host: ${hostname()}\npid: ${process.pid}\nppid: 1\ntime: x\n`);
      const eleven = new Date(Date.now() - 11 * 60_000); // past the 10 min skew bound, inside its hour
      utimesSync(path, eleven, eleven);
      assert.equal(isStaleLock(path), false, "before: stale at 10 min, whatever the lock's age");
      const twoHours = new Date(Date.now() - 2 * 3_600_000);
      utimesSync(path, twoHours, twoHours);
      assert.equal(isStaleLock(path), true);
      const ahead = new Date(Date.now() + 3_600_000); // a planted date: still stale at a glance
      utimesSync(path, ahead, ahead);
      assert.equal(isStaleLock(path), true);
    } finally {
      Deno.removeSync(d, { recursive: true });
    }
  } finally {
    if (saved === undefined) Deno.env.delete("SCOUT_LOCK_MAX_AGE");
    else Deno.env.set("SCOUT_LOCK_MAX_AGE", saved);
  }
});
