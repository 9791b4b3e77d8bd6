/**
 * What another member (B) of a shared store plants in it, met by A's
 * commands (R125): a FIFO in a lock's or a job's `.info`'s place is never
 * read (a read of a FIFO no one writes blocks for ever), and a lock dated
 * years ahead does not make A wait for ever. Real files, real CLI
 * subprocesses, each killed by SIGKILL after a limit: a regression fails
 * (exit 137), never hangs the suite.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/cli.ts";
import { scoutBash, shellQuote } from "../support/scout_bash.ts";
import { lockPathFor } from "../../src/workflow/store.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
/** The result path of `Baking whisk --eggs <n>`. */
const WHISK = (home: string, eggs: number) =>
  join(home, "var", "jobs", "Baking", "whisk", `Default_${whiskDigest[eggs]}`);
const whiskDigest: Record<number, string> = {};

async function mkfifo(path: string): Promise<void> {
  mkdirSync(join(path, ".."), { recursive: true });
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(out.code, 0, `mkfifo ${path}`);
}

/** Runs `whisk --eggs n --path` once to learn the job's path (then removes it). */
async function whiskPath(dir: string, eggs: number): Promise<string> {
  const r = await scoutBash(
    `scout workflow task ${shellQuote(BAKING)} whisk --eggs ${eggs} --json --clean`,
    dir,
  );
  const path = JSON.parse(r.stdout).path as string;
  whiskDigest[eggs] = path.slice(path.lastIndexOf("_") + 1);
  await Deno.remove(path);
  await Deno.remove(path + ".info");
  return WHISK(join(dir, "home"), eggs);
}

Deno.test("a FIFO in a job's persist lock's place is refused at once, named, not waited on (R125-4)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const job = await whiskPath(d.path, 13);
  const lock = lockPathFor(job, join(home, "tmp", "persist_locks"));
  await mkfifo(lock);
  const r = await scoutBash(
    `scout workflow task ${shellQuote(BAKING)} whisk --eggs 13; echo "exit $?"`,
    d.path,
    20,
  );
  assert.match(r.stdout, /exit 1\n$/, r.stderr);
  assert.ok(r.stderr.includes(`Lock file "${lock}" is a FIFO, not a lock`), r.stderr);
});

Deno.test("system clean and llm cache clean never read a FIFO planted as an .info or a lock (R125-4)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const jobs = join(home, "var", "jobs");
  await mkfifo(join(jobs, "Wf2", "t", "pipejob.info"));
  // an old job whose persist lock is a fresh FIFO: the clean asks whether it is held
  const held = join(jobs, "Wf3", "t", "busy");
  mkdirSync(join(held, ".."), { recursive: true });
  writeFileSync(held, "a result");
  writeFileSync(held + ".info", JSON.stringify({ status: "done" }));
  const old = new Date(Date.now() - 2 * 86_400_000);
  for (const f of [held, held + ".info"]) Deno.utimeSync(f, old, old);
  await mkfifo(lockPathFor(held, join(home, "tmp", "persist_locks")));
  await mkfifo(join(home, "var", "cache", "ask", "abc.lock"));
  const r = await scoutBash(
    `scout system clean all --dry-run; echo "exit $?"
     scout system clean Wf3 --older 1d; echo "exit $?"
     scout llm cache clean --older 1d; echo "exit $?"`,
    d.path,
    20,
  );
  const exits = [...r.stdout.matchAll(/^exit (\d+)$/gm)].map((m) => m[1]);
  assert.deepEqual(exits, ["0", "0", "1"], r.stdout + r.stderr);
  assert.match(r.stderr, /pipejob\.info": a FIFO, not a regular file/);
  assert.match(r.stderr, /kept .*Wf3\/t\/busy \(done\): its lock is not a regular file: a FIFO/);
  assert.match(r.stderr, /abc\.lock: Not a regular file but a FIFO/);
});

Deno.test("a lock dated ahead is waited on only until seen unchanged, and the wait is told on a non-terminal stderr (R125-5)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const job = await whiskPath(d.path, 12);
  const lock = lockPathFor(job, join(home, "tmp", "persist_locks"));
  mkdirSync(join(lock, ".."), { recursive: true });
  writeFileSync(lock, "host: elsewhere\npid: 4242\n");
  // 5 min ahead: a clock that far off is plausible; years ahead is taken at once (R139-1)
  const future = new Date(Date.now() + 5 * 60_000);
  Deno.utimeSync(lock, future, future);
  const r = await scoutBash(
    `SCOUT_LOCK_MAX_AGE=5 scout workflow task ${shellQuote(BAKING)} whisk --eggs 12 2>err
     echo "exit $?"; cat err >&2`,
    d.path,
    30,
  );
  assert.equal(r.stdout, "Whisked 12 soft\nexit 0\n", r.stderr);
  const told = r.stderr.split("\n").filter((l) => l.includes("waiting for lock"));
  assert.equal(told.length, 1, r.stderr);
  assert.ok(told[0]!.includes(`"${lock}" (held by host: elsewhere pid: 4242)`), told[0]);
});

Deno.test("llm cache clean names a FIFO planted as a key lock once, in text and --json; a dry run does not fail on it (R125, R142-6b)", async () => {
  await using d = await tempDir();
  const lock = join(d.path, "home", "var", "cache", "ask", "abc.lock");
  await mkfifo(lock);
  const r = await scoutBash(
    `scout llm cache clean --dry-run; echo "exit $?"
     scout llm cache clean --older 1d; echo "exit $?"
     scout llm cache clean --dry-run --json; echo "exit $?"`,
    d.path,
    20,
  );
  const told = r.stderr.split("\n").filter((l) => l.includes("abc.lock"));
  // before: `cannot remove <lock>: Not a regular file but a FIFO: "<lock>"`
  assert.deepEqual(told, [
    `scout-ai: warning: a real run cannot remove ${lock}: Not a regular file but a FIFO`,
    `scout-ai: cannot remove ${lock}: Not a regular file but a FIFO`,
  ]);
  const json = JSON.parse(r.stdout.split("\n").find((l) => l.startsWith("{"))!);
  assert.deepEqual(json.failed, [{ file: lock, error: "Not a regular file but a FIFO" }]);
  const exits = [...r.stdout.matchAll(/^exit (\d+)$/gm)].map((m) => m[1]);
  // a dry run removes nothing, so fails on nothing (before: 1 too, R142-6b)
  assert.deepEqual(exits, ["0", "1", "0"], r.stdout + r.stderr);
});

Deno.test("system clean keeps a job whose lock is a FIFO and says so, not that its lock is held, in text and --json (R125)", async () => {
  await using d = await tempDir();
  const home = join(d.path, "home");
  const t = join(home, "var", "jobs", "Wf3", "t");
  mkdirSync(t, { recursive: true });
  const old = new Date(Date.now() - 2 * 86_400_000);
  // `fresh`: a FIFO just planted; `aged`: one planted an hour ago (a stale lock's age)
  for (const name of ["fresh", "aged"]) {
    const job = join(t, name);
    writeFileSync(job, "a result");
    writeFileSync(job + ".info", JSON.stringify({ status: "done" }));
    for (const f of [job, job + ".info"]) Deno.utimeSync(f, old, old);
    await mkfifo(lockPathFor(job, join(home, "tmp", "persist_locks")));
  }
  const hour = new Date(Date.now() - 3_600_000);
  Deno.utimeSync(lockPathFor(join(t, "aged"), join(home, "tmp", "persist_locks")), hour, hour);
  const r = await scoutBash(
    `scout system clean Wf3 --older 1d --dry-run; echo "exit $?"
     scout system clean Wf3 --older 1d --json; echo "exit $?"
     scout system clean Wf3 --older 1d; echo "exit $?"`,
    d.path,
    20,
  );
  const exits = [...r.stdout.matchAll(/^exit (\d+)$/gm)].map((m) => m[1]);
  assert.deepEqual(exits, ["0", "0", "0"], r.stdout + r.stderr);
  const told = r.stderr.split("\n").filter((l) => l.startsWith("kept")).sort();
  const reason = "its lock is not a regular file: a FIFO";
  // before: `fresh` was "in use: its lock is held", `aged` would go, then failed on its lock
  assert.deepEqual(told, [
    `kept ${join(t, "aged")} (done): ${reason}`,
    `kept ${join(t, "aged")} (done): ${reason}`,
    `kept ${join(t, "fresh")} (done): ${reason}`,
    `kept ${join(t, "fresh")} (done): ${reason}`,
  ]);
  const json = JSON.parse(r.stdout.split("\n").find((l) => l.startsWith("{"))!);
  const kept = json.kept.map((k: { shortPath: string; reason: string }) => [k.shortPath, k.reason]);
  assert.deepEqual(kept.sort(), [["Wf3/t/aged", reason], ["Wf3/t/fresh", reason]]);
  assert.deepEqual([json.removed, json.failed], [[], []]);
  for (const name of ["fresh", "aged"]) assert.ok(Deno.statSync(join(t, name)).isFile);
});
