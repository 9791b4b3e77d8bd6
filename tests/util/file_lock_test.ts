/**
 * Taking over a stale registry lock (`src/util/file_lock.ts`) removes only
 * the lock judged stale, one taker at a time (R78-1): a competing waiter that
 * took the lock after the same judgement keeps it, and the two are never both
 * inside the read-modify-write. The interleavings are played through
 * `withFileLockSync`'s step seam — the competitor's moves made by the test
 * between two steps of the waiter — not by timing; one test runs real
 * processes at once on a dead lock.
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  acquireFileLockSync,
  type FileLockStep,
  withFileLockSync,
} from "../../src/util/file_lock.ts";
import { ScoutError } from "../../src/errors.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";

const me = `${Deno.pid}@${hostname()}`;
/** A live process of this host, never this one: pid 1. */
const live = `1@${hostname()}`;

function deadPid(): number {
  const out = new Deno.Command("sh", { args: ["-c", "echo $$"], stdout: "piped" }).outputSync();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

/** A registry file whose lock is held by a dead process of this host. */
function staleLock(dir: string): { file: string; lock: string } {
  const file = join(dir, "registry");
  const lock = `${file}.lock`;
  Deno.writeTextFileSync(lock, `${deadPid()}@${hostname()}`);
  return { file, lock };
}

/** Runs under a stale lock while a competitor takes it at step `at`; whether `fn` ran, and whether it played. */
function raceAt(dir: string, at: string) {
  const { file, lock } = staleLock(dir);
  let played = false;
  let ran = false;
  const step: FileLockStep = (s) => {
    if (s !== at || played) return;
    played = true;
    // what another waiter does after judging the same lock stale: removes it and takes it
    Deno.removeSync(lock);
    Deno.writeTextFileSync(lock, live);
  };
  let error: unknown;
  try {
    withFileLockSync(file, () => (ran = true), 300, step);
  } catch (e) {
    error = e;
  }
  return { ran, played, error, lock };
}

Deno.test("file lock: a stale lock another waiter took over after the same judgement is left to it", async () => {
  await using d = await tempDir();
  const { ran, played, error, lock } = raceAt(d.path, "judged");
  assert.ok(played, "the lock was judged stale");
  // before: the competitor's new live lock was removed and both ran the read-modify-write
  assert.equal(ran, false, "not run beside the competitor");
  assert.ok(error instanceof ScoutError && error.code === "io", String(error));
  assert.equal(Deno.readTextFileSync(lock), live, "the competitor's lock is kept");
});

Deno.test("file lock: a lock replaced while its holder is read is judged by the new one", async () => {
  await using d = await tempDir();
  const { ran, played, error, lock } = raceAt(d.path, "read");
  assert.ok(played);
  assert.equal(ran, false);
  assert.ok(error instanceof ScoutError, String(error));
  assert.equal(Deno.readTextFileSync(lock), live);
});

Deno.test("file lock: a taker in the gate is let finish; a crashed taker's gate is removed", async () => {
  await using d = await tempDir();
  const { file, lock } = staleLock(d.path);
  const gate = `${lock}.takeover`;
  Deno.writeTextFileSync(gate, "");
  const dead = Deno.readTextFileSync(lock);
  assert.throws(() => withFileLockSync(file, () => 1, 300), ScoutError, "waited on the gate");
  assert.equal(Deno.readTextFileSync(lock), dead, "the lock is the taker's to remove");
  const old = new Date(Date.now() - 60_000);
  Deno.utimeSync(gate, old, old);
  const seen = withFileLockSync(file, () => Deno.readTextFileSync(lock), 3_000);
  assert.equal(seen, me, "taken over once the gate is a crashed taker's");
  assert.throws(() => Deno.statSync(gate), Deno.errors.NotFound);
  assert.throws(() => Deno.statSync(lock), Deno.errors.NotFound, "released");
});

const CHILD = `
import { openSync, closeSync, unlinkSync } from "node:fs";
import { withFileLockSync } from "${join(ROOT, "src", "util", "file_lock.ts")}";
const [file, marker, at] = Deno.args;
while (Date.now() < Number(at)) { /* spin: start together */ }
withFileLockSync(file, () => {
  let fd;
  try { fd = openSync(marker, "wx"); } catch { console.log("OVERLAP"); return; }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
  closeSync(fd);
  unlinkSync(marker);
});
`;

Deno.test("file lock: processes at once on a dead lock never overlap", async () => {
  await using d = await tempDir();
  const script = join(d.path, "child.ts");
  Deno.writeTextFileSync(script, CHILD);
  for (let round = 0; round < 3; round++) {
    const { file } = staleLock(d.path);
    const at = String(Date.now() + 500);
    const runs = await Promise.all(Array.from({ length: 8 }, () =>
      new Deno.Command(DENO, {
        args: ["run", "-A", "--no-lock", "--no-check", script, file, join(d.path, "marker"), at],
        stdout: "piped",
        stderr: "piped",
      }).output()));
    for (const r of runs) {
      assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
      assert.equal(new TextDecoder().decode(r.stdout), "", `round ${round}: overlapped`);
    }
  }
});

Deno.test("file lock: another host's lock is not judged by its age on our clock, unless beyond any skew (R139)", async () => {
  await using d = await tempDir();
  const file = join(d.path, "registry");
  const lock = `${file}.lock`;
  const plant = (msFromNow: number) => {
    Deno.writeTextFileSync(lock, "4242@nodeA");
    const at = new Date(Date.now() + msFromNow);
    Deno.utimeSync(lock, at, at);
  };
  plant(-60_000); // its holder's clock a minute behind ours: a live lock
  assert.equal(acquireFileLockSync(file, { waitMs: 300 }), null, "waited on, not taken over");
  assert.equal(Deno.readTextFileSync(lock), "4242@nodeA");
  for (const ms of [-3_600_000, 3_600_000]) {
    plant(ms);
    const release = acquireFileLockSync(file, { waitMs: 300 });
    assert.ok(release, `${ms} ms: beyond any clock's skew, taken over`);
    release();
  }
});

Deno.test("file lock: a dangling symbolic link or a directory at the lock is refused at once, named, and left (R142-1)", async () => {
  await using d = await tempDir();
  const file = join(d.path, "registry");
  const lock = `${file}.lock`;
  for (
    const [plant, kind] of [
      [() => Deno.symlinkSync("/nonexistent/x", lock), `a symbolic link to "/nonexistent/x"`],
      [() => Deno.mkdirSync(lock), "a directory"],
    ] as const
  ) {
    plant();
    const started = Date.now();
    // before: the link looked like no lock, tried again for the whole wait, then "held by another process"
    assert.throws(
      () => withFileLockSync(file, () => 1, 3_000),
      (e: unknown) =>
        e instanceof ScoutError && e.file === lock &&
        e.message === `Lock file "${lock}" is ${kind}, not a lock: no holder to wait for ` +
            "(remove it, then run again)",
    );
    assert.ok(Date.now() - started < 1_000, "refused at once");
    assert.ok(Deno.lstatSync(lock), "left where it is");
    Deno.removeSync(lock);
  }
});
