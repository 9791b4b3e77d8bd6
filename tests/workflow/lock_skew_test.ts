/**
 * Persist locks across hosts whose clocks disagree (R139-1): a holder on
 * another host refreshes its lock on its own clock, so a waiter judges such a
 * lock by whether it changes while watched, not by its age on the waiter's
 * clock — except a date beyond any plausible skew (`src/util/lock_watch.ts`).
 * The holder here is a real process of "another host": its own UTS namespace
 * (`unshare -r --uts`, host name `nodeA`) and a clock a minute behind
 * (`faketime`).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireLock, isStaleLock } from "../../src/workflow/lock.ts";
import { lockPathFor } from "../../src/workflow/store.ts";
import { MAX_SKEW_MS } from "../../src/util/lock_watch.ts";
import { DENO, homeIn, ROOT, SCOUT_SOURCE_ARGS, spawnScout, tempDir } from "../support/cli.ts";
import { waitUntil } from "../support/wait.ts";

const SLOW = join(ROOT, "fixtures", "workflows", "Slow");
const NAP = ["workflow", "task", SLOW, "nap", "--seconds", "77"];
const dec = new TextDecoder();

/** `scout …` as a process of host `nodeA` whose clock is `skew` (faketime's offset) off ours. */
function onNodeA(skew: string, args: string[], env: Record<string, string>): Deno.ChildProcess {
  const script = `hostname nodeA && exec faketime -f "${skew}" "$@"`;
  return new Deno.Command("unshare", {
    args: ["-r", "--uts", "sh", "-c", script, "sh", DENO, ...SCOUT_SOURCE_ARGS, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("a live lock of a host whose clock is a minute behind is waited on, not taken over: the body runs once (R139-1)", async () => {
  await using d = await tempDir();
  const log = join(d.path, "slow.log");
  const env = {
    ...homeIn(d.path),
    HOME: d.path,
    SLOW_LOG: log,
    SLOW_SLEEP: "5",
    SCOUT_LOCK_MAX_AGE: "2", // stale after 2 s: nodeA's lock looks 60 s old on our clock
  };
  const a = onNodeA("-60s", NAP, env);
  await waitUntil("nodeA's body", () => existsSync(log), 60_000);
  const b = spawnScout(NAP, { env });
  const [ra, rb] = await Promise.all([a.output(), b.output()]);
  assert.equal(ra.code, 0, dec.decode(ra.stderr));
  assert.equal(rb.code, 0, dec.decode(rb.stderr));
  assert.equal(dec.decode(ra.stdout), "Slept 77\n");
  assert.equal(dec.decode(rb.stdout), "Slept 77\n");
  const runs = readFileSync(log, "utf8").trim().split("\n");
  assert.equal(runs.length, 1, `the body ran ${runs.length} times`);
});

Deno.test("another host's lock: not stale at a glance by its age alone, stale once beyond any plausible skew (R139-1)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "locks");
  mkdirSync(dir, { recursive: true });
  const job = join(d.path, "Default");
  const path = lockPathFor(job, dir);
  const plant = (msAgo: number) => {
    writeFileSync(path, "host: nodeA\npid: 1\nppid: 1\ntime: x\n");
    const at = new Date(Date.now() - msAgo);
    utimesSync(path, at, at);
  };
  for (const ago of [31_000, 5 * 60_000, -5 * 60_000]) {
    plant(ago);
    assert.equal(isStaleLock(path), false, `${ago} ms old: its clock may be off`);
  }
  for (const ago of [30_000 + MAX_SKEW_MS + 60_000, -MAX_SKEW_MS - 60_000, -5 * 365 * 86_400_000]) {
    plant(ago);
    assert.equal(isStaleLock(path), true, `${ago} ms old: beyond any clock's skew`);
    // taken at once: a watch (30 s) would time out
    (await acquireLock(job, dir, { timeoutMs: 1_000 })).release();
  }
});
