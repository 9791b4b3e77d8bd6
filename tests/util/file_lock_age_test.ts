/**
 * A file lock of this host goes stale once untouched for its stale age,
 * whatever its pid (R151-1, `util/lock_watch.ts`'s `lockStale`): a crashed
 * holder whose pid was reused since (a reboot: pid 1 here) blocked
 * `config set`, `kb register` and index builds until removed by hand —
 * before, only a dead pid made such a lock stale. A holder that keeps its
 * lock fresh (a long hold, refreshed from its thread while its main thread
 * is blocked) is still waited on; one that does not is taken over. Real
 * files; the holders are real processes.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { acquireFileLockSync, withFileLockSync } from "../../src/util/file_lock.ts";
import { lockStale } from "../../src/util/lock_watch.ts";
import { DENO, homeIn, ROOT, runScout, tempDir } from "../support/cli.ts";
import { waitUntil } from "../support/wait.ts";

const TWO_DAYS_AGO = new Date(Date.now() - 2 * 86_400_000);

/** `1@<this host>` (pid 1 lives: a reused pid), untouched for two days. */
function plantReused(lock: string): void {
  Deno.writeTextFileSync(lock, `1@${hostname()}`);
  Deno.utimeSync(lock, TWO_DAYS_AGO, TWO_DAYS_AGO);
}

Deno.test("file lock: a lock of a live unrelated pid of this host, untouched for two days, is taken over (R151-1)", async () => {
  await using d = await tempDir();
  const file = join(d.path, "registry");
  plantReused(`${file}.lock`);
  const started = Date.now();
  // before: waited out the whole wait, then "held by another process"
  assert.equal(
    withFileLockSync(file, () => Deno.readTextFileSync(`${file}.lock`), 3_000),
    `${Deno.pid}@${hostname()}`,
  );
  assert.ok(Date.now() - started < 2_000, "taken over at once");
  assert.equal(existsSync(`${file}.lock`), false, "released");
});

Deno.test("file lock: `config set` under a reused pid's old lock succeeds at once (R151-1 repro)", async () => {
  await using d = await tempDir();
  const env = homeIn(d.path);
  const config = join(env.SCOUT_HOME, "etc", "config");
  Deno.mkdirSync(join(env.SCOUT_HOME, "etc"), { recursive: true });
  plantReused(`${config}.lock`);
  const started = Date.now();
  const r = await runScout(["config", "set", "model", "gpt-y", "ask"], { env });
  // before: 60.7 s, then `The lock ".../config.lock" is held by another process`, exit 1
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  assert.match(Deno.readTextFileSync(config), /^model gpt-y ask$/m);
  assert.equal(existsSync(`${config}.lock`), false, "the lock is gone");
});

/** A holder: takes the lock (`long`: refreshed), says so, then blocks its main thread. */
const HOLDER = `
import { acquireFileLockSync } from "${join(ROOT, "src", "util", "file_lock.ts")}";
const [file, long] = Deno.args;
const release = acquireFileLockSync(file, { long: long === "long", staleMs: 1_200 });
if (!release) Deno.exit(3);
console.log("held");
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000); // a build, synchronous
`;

/** Starts a holder of `<file>.lock` and waits until it holds it; its pid. */
async function holder(dir: string, file: string, long: boolean): Promise<Deno.ChildProcess> {
  const script = join(dir, "holder.ts");
  Deno.writeTextFileSync(script, HOLDER);
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "--no-lock", "--no-check", script, file, long ? "long" : "short"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitUntil(
    "the holder's lock",
    () => Deno.readTextFileSync(`${file}.lock`) === `${child.pid}@${hostname()}`,
  );
  return child;
}

Deno.test("file lock: a live holder that keeps its lock fresh is waited on, one that does not is taken over once stale", async () => {
  await using d = await tempDir();
  const file = join(d.path, "index.idx");
  const lock = `${file}.lock`;
  const fresh = await holder(d.path, file, true);
  try {
    // over twice the stale age (1.2 s): its refresher thread touches it every 200 ms
    assert.equal(acquireFileLockSync(file, { waitMs: 3_000, staleMs: 1_200 }), null, "waited on");
    assert.equal(Deno.readTextFileSync(lock), `${fresh.pid}@${hostname()}`, "still its lock");
  } finally {
    fresh.kill("SIGKILL");
    await fresh.status;
  }
  Deno.removeSync(lock);
  const silent = await holder(d.path, file, false);
  try {
    const release = acquireFileLockSync(file, { waitMs: 10_000, staleMs: 1_200 });
    assert.ok(release, "a live pid's lock untouched for the stale age is taken over");
    release();
  } finally {
    silent.kill("SIGKILL");
    await silent.status;
  }
});

Deno.test("lockStale: this host by age or a dead pid; another host by its watch; a fresh live one is held", () => {
  const old = { ino: 1, mtimeMs: Date.now() - 60_000 };
  const now = { ino: 1, mtimeMs: Date.now() };
  const here = hostname();
  assert.equal(lockStale({ pid: 1, host: here }, old, 30_000), true, "a reused pid's old lock");
  assert.equal(lockStale({ pid: 1, host: here }, now, 30_000), false, "a live holder's fresh lock");
  assert.equal(lockStale({}, old, 30_000), true, "no holder, old");
  assert.equal(
    lockStale({ pid: 1, host: "nodeA" }, old, 30_000),
    false,
    "another host's: a clock behind",
  );
  assert.equal(lockStale({ pid: Deno.pid, host: here }, now, 30_000), false, "this process's own");
  assert.equal(lockStale({ pid: Deno.pid, host: here }, now, 30_000, { ownIsStale: true }), true);
});
