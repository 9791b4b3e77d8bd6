/**
 * The built binary's cleans (Bun, where `util/pinned_dir.ts` names a
 * directory's entries through `/proc/self/fd`, R145-4): `system clean`
 * removes an old job's files, a nested `.files/` tree included, without
 * following a link in it, and sweeps a dead process's persist lock;
 * `llm cache clean` removes an old entry under its key's lock (this process's
 * holder made and removed on the way) and a dead process's holder and temp
 * file — each by name in its directory, opened and checked.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, symlinkSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { buildBinary, runBinary, tempDir } from "../support/cli.ts";
import { putAged } from "../support/planted.ts";

Deno.test("binary: system clean and llm cache clean remove by name in the directories opened, links not followed", async () => {
  await buildBinary();
  await using d = await tempDir();
  const home = join(d.path, "home", ".scout");
  const env = { HOME: join(d.path, "home"), SCOUT_HOME: home };
  const task = join(home, "var", "jobs", "Wf", "t");
  const job = putAged(join(task, "Default"), "a result", 200);
  putAged(job + ".info", JSON.stringify({ status: "done" }), 200);
  putAged(join(job + ".files", "sub", "deep", "x"), "x", 200);
  const victim = putAged(join(d.path, "a", "keep"), "A's file", 200);
  symlinkSync(join(d.path, "a"), join(job + ".files", "sub", "link"));
  const dead = 2 ** 22 + 7;
  const lock = putAged(
    join(home, "tmp", "persist_locks", "x.lock"),
    `host: ${hostname()}\npid: ${dead}\nppid: 1\ntime: 2020-01-01 00:00:00.000000\n`,
    1,
  );
  const cache = join(home, "var", "cache", "ask");
  const entry = putAged(join(cache, `${"a".repeat(64)}.json`), "{}", 200);
  const holder = putAged(join(cache, ".holders", `${dead}@${hostname()}`), "", 1);
  const temp = putAged(join(cache, `${"b".repeat(64)}.json.tmp-${dead}@${hostname()}-1`), "", 1);

  const sys = await runBinary(["system", "clean", "all", "--older", "30d", "--json"], {
    env,
    cwd: d.path,
  });
  assert.equal(sys.code, 0, sys.stderr);
  assert.deepEqual(JSON.parse(sys.stdout).removed.map((x: { path: string }) => x.path), [job]);
  assert.deepEqual(readdirSync(task), [], "the job's files all went");
  assert.ok(existsSync(victim), "A's file through the link stays");
  assert.equal(existsSync(lock), false, "the dead process's persist lock was swept");

  const llm = await runBinary(["llm", "cache", "clean", "--older", "30d", "--json"], {
    env,
    cwd: d.path,
  });
  assert.equal(llm.code, 0, llm.stderr);
  const out = JSON.parse(llm.stdout);
  assert.deepEqual(out.removed.map((x: { file: string }) => x.file), [entry]);
  assert.deepEqual([out.holders, out.temps, out.failed], [[holder], [temp], []]);
  assert.deepEqual(readdirSync(join(cache, ".holders")), [], "the clean's own holder went at exit");
  assert.deepEqual(readdirSync(cache), [".holders"]);
});
