/**
 * `deno task test` (tests/support/suite.ts) runs the tests in a temporary
 * HOME of their own and fails the suite when they wrote into its `~/.scout`
 * (R77-6: the user's Scout home, shared with the Ruby Scout): the check on a
 * HOME with and without such a write, then the real wrapper running a test
 * file that writes there and one that does not.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";
import { strayWrites, strayWritesLine, summaryWithFailure } from "../support/suite_home.ts";

const SUITE = join(ROOT, "tests", "support", "suite.ts");

Deno.test("suite HOME: nothing under .scout is no stray write; other directories of HOME are not looked at", async () => {
  await using t = await tempDir();
  assert.deepEqual(strayWrites(t.path), []);
  put(t.path, ".cache/deno/x"); // a cache the tests' tools keep: not the Scout home
  put(t.path, ".config/chromium/y");
  assert.deepEqual(strayWrites(t.path), []);
});

Deno.test("suite HOME: every file and empty directory under .scout (and the suite's SCOUT_HOME) is named", async () => {
  await using t = await tempDir();
  mkdirSync(join(t.path, ".scout"));
  assert.deepEqual(strayWrites(t.path), ["~/.scout/"], "a .scout made and left empty");
  put(t.path, ".scout/var/cache/ask/k.json", "{}");
  mkdirSync(join(t.path, ".scout", "tmp", "persist_locks"), { recursive: true });
  put(t.path, "SCOUT_HOME/var/jobs/W/t/Default");
  const found = strayWrites(t.path);
  assert.deepEqual(found, [
    "$SCOUT_HOME/var/jobs/W/t/Default",
    "~/.scout/tmp/persist_locks/",
    "~/.scout/var/cache/ask/k.json",
  ]);
  const line = strayWritesLine(found);
  assert.match(line, /^suite: FAILED: .*~\/\.scout\/tmp\/persist_locks\/, ~\/\.scout\/var/);
  assert.doesNotMatch(line, /\n/);
  const many = strayWritesLine(Array.from({ length: 12 }, (_, i) => `~/.scout/f${i}`));
  assert.match(many, /~\/\.scout\/f9 and 2 more;/);
});

Deno.test("suite HOME: Deno's summary line again, with one more failure (what .ci/run counts)", () => {
  const deno = "\x1b[0m\x1b[32mok\x1b[0m | 1292 passed (45 steps) | 0 failed \x1b[0m(3m4s)\x1b[0m";
  assert.equal(
    summaryWithFailure(deno),
    "FAILED | 1292 passed (45 steps) | 1 failed (one: the tests wrote into ~/.scout)",
  );
  assert.match(
    summaryWithFailure("FAILED | 3 passed | 2 failed (1s)")!,
    /^FAILED \| 3 passed \| 3 failed/,
  );
  assert.equal(summaryWithFailure("writes ... ok (2ms)"), null);
});

/**
 * Runs the wrapper on a test file that records its HOME, DENO_DIR and
 * SCOUT_HOME in `seen` and, when `write`, writes `$HOME/.scout/<write>`.
 */
async function suiteRun(dir: string, write?: string, env: Record<string, string> = {}) {
  const seen = join(dir, "seen.json");
  const file = join(dir, "home_test.ts");
  writeFileSync(
    file,
    `Deno.test("home", () => {
  const home = Deno.env.get("HOME")!;
  Deno.writeTextFileSync(${JSON.stringify(seen)}, JSON.stringify({
    home, denoDir: Deno.env.get("DENO_DIR"), scoutHome: Deno.env.get("SCOUT_HOME") ?? null,
  }));
  const write = ${JSON.stringify(write ?? null)};
  if (write !== null) {
    Deno.mkdirSync(home + "/.scout/tmp", { recursive: true });
    Deno.writeTextFileSync(home + "/.scout/" + write, "x");
  }
});
`,
  );
  const out = await new Deno.Command(DENO, {
    args: ["run", "-q", "-A", SUITE, "test", "-q", "-A", "--no-config", file],
    cwd: dir,
    env: { SCOUT_SLURM_DIR: join(dir, "slurm"), ...env }, // not the real cluster's registry
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  const lines = text(out.stdout).trimEnd().split("\n");
  return {
    code: out.code,
    last: stripVTControlCharacters(lines.at(-1)!),
    stderr: text(out.stderr),
    seen: JSON.parse(Deno.readTextFileSync(seen)),
  };
}

Deno.test("suite HOME: the wrapper runs the tests in a temporary HOME, keeps Deno's cache, and removes it", async () => {
  await using t = await tempDir();
  const r = await suiteRun(t.path, undefined, { SCOUT_HOME: join(t.path, "users-scout") });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.match(r.last, /^ok \| 1 passed \| 0 failed/);
  assert.notEqual(r.seen.home, Deno.env.get("HOME"));
  assert.match(r.seen.home, /scout-suite-home-/);
  assert.equal(r.seen.scoutHome, join(r.seen.home, "SCOUT_HOME"), "not the user's SCOUT_HOME");
  assert.ok(existsSync(r.seen.denoDir), `the real Deno cache (${r.seen.denoDir})`);
  assert.ok(!r.seen.denoDir.startsWith(r.seen.home));
  assert.ok(!existsSync(r.seen.home), "the temporary HOME is removed");
  assert.ok(!existsSync(join(t.path, "users-scout")));
});

Deno.test("suite HOME: a test that writes into ~/.scout fails the suite, one line naming the file", async () => {
  await using t = await tempDir();
  const r = await suiteRun(t.path, "tmp/lock");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^suite: FAILED: .*: ~\/\.scout\/tmp\/lock; .*\(R77-6\)\n$/);
  assert.equal(r.last, "FAILED | 1 passed | 1 failed (one: the tests wrote into ~/.scout)");
  assert.ok(!existsSync(r.seen.home), "the temporary HOME is removed");
});
