/**
 * An inference cache the file system refuses (a read-only or foreign home, a
 * path through a file) does not stop an ask: it is told once and the ask goes
 * on without the cache; offline replay, which needs the cache, still fails.
 * So does a home where no directory can be made (under `/proc`, through a
 * link to nothing: R119-6).
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runScout } from "../support/cli.ts";
import { setup } from "./llm_ask_support.ts";

Deno.test("a cache directory that cannot be made: one warning, the ask answered without the cache", async () => {
  await using t = await setup();
  // $SCOUT_HOME/var/cache is a file: var/cache/ask cannot be made (ENOTDIR, even as root)
  mkdirSync(join(t.env.SCOUT_HOME, "var"), { recursive: true });
  writeFileSync(join(t.env.SCOUT_HOME, "var", "cache"), "not a directory\n");
  t.srv.script({ text: "first" }, { text: "second" });
  const one = await t.run(["ask", ...t.flags, "Capital of France?"]);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, "first\n");
  assert.match(
    one.stderr,
    /The inference cache at ".*var\/cache\/ask" cannot store answers: a part of the path is not a directory: new answers are not stored \(--no-cache skips the cache\)\n/,
  );
  assert.equal(one.stderr.split("\n").filter(Boolean).length, 1, one.stderr);
  // nothing cached: the same question reaches the provider again, and is not told again
  const two = await t.run(["ask", ...t.flags, "Capital of France?"]);
  assert.equal(two.code, 0, two.stderr);
  assert.equal(two.stdout, "second\n");
  assert.equal(t.srv.requests.length, 2);
  // offline replay needs the cache: a miss, no request
  const offline = await t.run(["ask", ...t.flags, "--offline", "Capital of France?"]);
  assert.equal(offline.code, 1);
  assert.match(offline.stderr, /Offline: no cached answer/);
  assert.equal(t.srv.requests.length, 2);
});

Deno.test("a home under /proc, where no directory can be made: warned, answered and saved (R119-6)", async () => {
  await using t = await setup();
  t.env.SCOUT_HOME = "/proc/scout-r119/home"; // mkdir: ENOENT, even as root
  t.srv.script({ text: "first" });
  // a subprocess with all permissions: Deno asks for all of them to read under /proc,
  // as the CLI has them whatever the test process's own set
  const r = await runScout(["llm", "ask", ...t.flags, "-o", "out.chat", "Capital of France?"], {
    env: t.env,
    cwd: t.dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "first\n");
  assert.equal(
    r.stderr,
    'scout-ai: warning: The inference cache at "/proc/scout-r119/home/var/cache/ask" cannot ' +
      "store answers: no such file or directory: new answers are not stored (--no-cache skips " +
      "the cache)\n" +
      'scout-ai: warning: Cannot lock in "/proc/scout-r119/home/tmp/persist_locks" ' +
      "(no such file or directory): locking next to the chat\n",
  );
  assert.match(readFileSync(join(t.dir.path, "out.chat"), "utf8"), /assistant:\n\nfirst\n$/);
});

Deno.test("a home through a link to nothing: the cache is skipped with a warning (R119-6)", async () => {
  await using t = await setup();
  const home = join(t.dir.path, "home-link");
  symlinkSync(join(t.dir.path, "gone", "home"), home); // Deno's mkdir says EEXIST, Bun's ENOENT
  t.env.SCOUT_HOME = home;
  t.srv.script({ text: "first" });
  const r = await t.run(["ask", ...t.flags, "Capital of France?"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "first\n");
  assert.match(
    r.stderr,
    /^scout-ai: warning: The inference cache at ".*home-link\/var\/cache\/ask" cannot store answers: .*: new answers are not stored \(--no-cache skips the cache\)\n$/,
  );
});
