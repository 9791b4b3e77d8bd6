/**
 * What can be no lock at a lock's path (R142-1, R142-6): a dangling symbolic
 * link made every `O_EXCL` create fail `EEXIST` while a look through it saw
 * no lock, so `workflow task`, `llm ask` and `system clean` waited for ever;
 * a directory failed naming no file; `llm cache clean --dry-run` failed on
 * what it would not remove. Real links and directories, real CLI
 * subprocesses, each killed after a limit: a regression fails (exit 137),
 * never hangs the suite.
 */
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/cli.ts";
import { scoutBash, shellQuote } from "../support/scout_bash.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { lockPathFor } from "../../src/workflow/store.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
const exitsOf = (stdout: string) => [...stdout.matchAll(/^exit (\d+)$/gm)].map((m) => m[1]);

/** Runs `whisk --eggs n` once (its job then removed): the path of its persist lock. */
async function whiskLock(dir: string, eggs: number): Promise<string> {
  const r = await scoutBash(
    `scout workflow task ${shellQuote(BAKING)} whisk --eggs ${eggs} --json`,
    dir,
  );
  const path = JSON.parse(r.stdout).path as string;
  rmSync(path);
  rmSync(path + ".info");
  return lockPathFor(path, join(dir, "home", "tmp", "persist_locks"));
}

Deno.test("a dangling symbolic link at a job's persist lock is refused at once, named, and left (R142-1)", async () => {
  await using d = await tempDir();
  const lock = await whiskLock(d.path, 5);
  mkdirSync(join(lock, ".."), { recursive: true });
  symlinkSync("/nonexistent/x", lock);
  const r = await scoutBash(
    `SCOUT_LOCK_MAX_AGE=3 scout workflow task ${shellQuote(BAKING)} whisk --eggs 5; echo "exit $?"`,
    d.path,
    20,
  );
  // before: no output, killed at the limit (exit 137)
  assert.deepEqual(exitsOf(r.stdout), ["1"], r.stderr);
  assert.ok(
    r.stderr.includes(
      `Lock file "${lock}" is a symbolic link to "/nonexistent/x", not a lock: no holder to wait for`,
    ),
    r.stderr,
  );
  assert.ok(lstatSync(lock).isSymbolicLink(), "the link stays: not ours to remove");
});

Deno.test("a directory at a job's persist lock: workflow task --clean names the lock (R142-6a)", async () => {
  await using d = await tempDir();
  const lock = await whiskLock(d.path, 6);
  mkdirSync(lock, { recursive: true });
  const r = await scoutBash(
    `scout workflow task ${shellQuote(BAKING)} whisk --eggs 6 --clean; echo "exit $?"`,
    d.path,
    20,
  );
  assert.deepEqual(exitsOf(r.stdout), ["1"], r.stderr);
  // before: `scout-ai: Is a directory (os error 21)`
  assert.ok(r.stderr.includes(`Lock file "${lock}" is a directory, not a lock`), r.stderr);
});

Deno.test("system clean keeps an old job whose persist lock is a dangling link, dry run or not, and ends (R142-1)", async () => {
  await using d = await tempDir();
  const lock = await whiskLock(d.path, 7);
  const made = await scoutBash(
    `scout workflow task ${shellQuote(BAKING)} whisk --eggs 7 --json`,
    d.path,
  );
  const job = JSON.parse(made.stdout).path as string;
  const old = new Date(Date.now() - 3 * 86_400_000);
  for (const f of [job, job + ".info"]) Deno.utimeSync(f, old, old);
  symlinkSync("/nonexistent/x", lock);
  const r = await scoutBash(
    `scout system clean Baking --older 1d --dry-run; echo "exit $?"
     scout system clean Baking --older 1d; echo "exit $?"`,
    d.path,
    20,
  );
  // before: the dry run would remove it, the real run waited on the link until killed
  assert.deepEqual(exitsOf(r.stdout), ["0", "0"], r.stderr);
  const kept = r.stderr.split("\n").filter((l) => l.startsWith("kept"));
  const line = `kept ${job} (done): its lock is not a regular file: a symbolic link to ` +
    `"/nonexistent/x"`;
  assert.deepEqual(kept, [line, line]);
  assert.ok(lstatSync(job).isFile());
});

/** A cache entry of `question` made by a real ask, its `.json` then removed: the key's lock path. */
async function keyLock(dir: string, url: string, question: string): Promise<string> {
  const r = await scoutBash(`OPENAI_API_KEY=sk-x scout ${ask(url, question)}`, dir);
  const cache = join(dir, "home", "var", "cache", "ask");
  const entries = readdirSync(cache).filter((n) => /^[0-9a-f]+\.json$/.test(n));
  assert.equal(entries.length, 1, r.stderr);
  unlinkSync(join(cache, entries[0]!));
  return join(cache, entries[0]!.replace(/\.json$/, ".lock"));
}

const ask = (url: string, q: string) =>
  `llm ask -b openai -O url=${shellQuote(url)} -m m ${shellQuote(q)}`;

Deno.test("a dangling symbolic link or a directory at a cache key's lock: llm ask fails at once naming it (R142-1, R142-6a)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "fine" }) });
  const lock = await keyLock(d.path, srv.url, "How are you");
  symlinkSync("/nonexistent/x", lock);
  const script = `OPENAI_API_KEY=sk-x scout ${ask(srv.url, "How are you")}; echo "exit $?"`;
  const linked = await scoutBash(script, d.path, 20);
  unlinkSync(lock);
  mkdirSync(lock);
  const dir = await scoutBash(script, d.path, 20);
  // before: "Waiting for another process's identical inference", killed at the limit
  assert.deepEqual(exitsOf(linked.stdout + dir.stdout), ["1", "1"], linked.stderr + dir.stderr);
  const named = (kind: string) => `Lock file "${lock}" is ${kind}, not a lock`;
  assert.ok(linked.stderr.includes(named(`a symbolic link to "/nonexistent/x"`)), linked.stderr);
  // before: `scout-ai: Cannot open: it is a directory`
  assert.ok(dir.stderr.includes(named("a directory")), dir.stderr);
  assert.equal(srv.requests.length, 1, "only the first ask reached the model");
});

Deno.test("llm cache clean: a directory or link at a key lock fails a real run, not a dry run (R142-6b)", async () => {
  await using d = await tempDir();
  const cache = join(d.path, "home", "var", "cache", "ask");
  mkdirSync(join(cache, "abc.lock"), { recursive: true });
  symlinkSync("/nonexistent/x", join(cache, "def.lock"));
  const r = await scoutBash(
    `scout llm cache clean --dry-run; echo "exit $?"
     scout llm cache clean --dry-run --json; echo "exit $?"
     scout llm cache clean; echo "exit $?"`,
    d.path,
    20,
  );
  // before: 1, 1, 1 — `cannot remove <lock>: EISDIR: illegal operation on a directory, open`
  assert.deepEqual(exitsOf(r.stdout), ["0", "0", "1"], r.stdout + r.stderr);
  const dirWhy = "Not a regular file but a directory";
  const linkWhy = `Not a regular file but a symbolic link to "/nonexistent/x"`;
  const [abc, def] = [join(cache, "abc.lock"), join(cache, "def.lock")];
  assert.deepEqual(r.stderr.split("\n").filter((l) => l !== "").sort(), [
    `scout-ai: cannot remove ${abc}: ${dirWhy}`,
    `scout-ai: cannot remove ${def}: ${linkWhy}`,
    `scout-ai: warning: a real run cannot remove ${abc}: ${dirWhy}`,
    `scout-ai: warning: a real run cannot remove ${def}: ${linkWhy}`,
  ]);
  const json = JSON.parse(r.stdout.split("\n").find((l) => l.startsWith("{"))!);
  assert.deepEqual(json.failed, [{ file: abc, error: dirWhy }, { file: def, error: linkWhy }]);
  assert.ok(lstatSync(join(cache, "def.lock")).isSymbolicLink(), "left where it is");
});
