/**
 * `system clean` on a store reached by more than one spelling, and next to
 * jobs whose `.info` cannot be read (R123-1, R123-2): a `SCOUT_HOME` that is
 * a symbolic link, with the cwd's `var/jobs` a link into it, listed the store
 * twice and removed a dependency it reported kept; a run holding a job's lock
 * under another spelling was not seen; a job that stays with an unreadable
 * `.info` let its dependencies go silently. Since R124-1 such a job keeps
 * every done job with one warning (it stopped the whole clean), and a Ruby
 * Marshal `.info` is read (tests/cli/system_clean_ruby_test.ts).
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { ageJob, present } from "../support/store_ages.ts";
import { lockHolder } from "../support/lock_holder.ts";

/** An `.info` cut short (neither JSON nor Marshal): which jobs it names is unknown. */
const CUT_INFO = '{"status":"done","dependencies":["/';

/**
 * The store of the report: `<d>/scout` reached as `SCOUT_HOME=<d>/link`
 * (a link to it), the cwd `<d>/proj` whose `var/jobs` links to
 * `<d>/link/var/jobs`; Wf/dep/X old, done; Wf/top/D young, done, its
 * dependency spelled through the link.
 */
function twoSpellings(d: string, topInfo?: string) {
  const real = join(d, "scout", "var", "jobs", "Wf");
  for (const t of ["dep", "top"]) mkdirSync(join(real, t), { recursive: true });
  mkdirSync(join(d, "proj", "var"), { recursive: true });
  symlinkSync(join(d, "scout"), join(d, "link"));
  symlinkSync(join(d, "link", "var", "jobs"), join(d, "proj", "var", "jobs"));
  const dep = join(real, "dep", "X");
  writeFileSync(dep, "data\n");
  writeFileSync(dep + ".info", JSON.stringify({ status: "done" }));
  ageJob(dep, 40);
  const top = join(real, "top", "D");
  writeFileSync(top, "top\n");
  const spelled = join(d, "link", "var", "jobs", "Wf", "dep", "X");
  writeFileSync(
    top + ".info",
    topInfo ?? JSON.stringify({ status: "done", dependencies: [spelled] }),
  );
  const opts = {
    cwd: join(d, "proj"),
    env: { HOME: d, SCOUT_HOME: join(d, "link"), NO_COLOR: "1" },
  };
  return { dep, top, opts, linkRoot: join(d, "link", "var", "jobs") };
}

Deno.test("system clean: a store reached by two spellings is listed once; a dependency kept stays", async () => {
  await using d = await tempDir();
  const s = twoSpellings(d.path);
  const r = await runMain(["system", "clean", "Wf", "--older", "30d", "--json"], s.opts);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.roots, [s.linkRoot], "one root: the cwd's var/jobs is SCOUT_HOME's");
  assert.deepEqual(out.removed, []);
  assert.deepEqual(
    out.kept.map((k: { shortPath: string; reason: string }) => [k.shortPath, k.reason]),
    [
      ["Wf/dep/X", "a dependency of Wf/top/D, which stays"],
    ],
  );
  assert.ok(present(s.dep), "the dependency is still there");
});

Deno.test("system clean: a dependency spelled through a link that is no root keeps the real job, not a namesake", async () => {
  await using d = await tempDir();
  const s = twoSpellings(d.path);
  // the cwd's own store (a real directory) holds the job that stays and a namesake of its dependency
  Deno.removeSync(join(d.path, "proj", "var", "jobs"));
  const local = join(d.path, "proj", "var", "jobs", "Wf");
  for (const t of ["dep", "top"]) mkdirSync(join(local, t), { recursive: true });
  const namesake = join(local, "dep", "X");
  writeFileSync(namesake, "other data\n");
  writeFileSync(namesake + ".info", JSON.stringify({ status: "done" }));
  ageJob(namesake, 40);
  Deno.renameSync(s.top, join(local, "top", "D"));
  Deno.renameSync(s.top + ".info", join(local, "top", "D.info"));
  symlinkSync(join(d.path, "scout"), join(d.path, "other"));
  const spelled = join(d.path, "other", "var", "jobs", "Wf", "dep", "X");
  const info = { status: "done", dependencies: [["Wf", "dep", spelled]] };
  writeFileSync(join(local, "top", "D.info"), JSON.stringify(info));
  const r = await runMain(["system", "clean", "Wf", "--older", "30d", "--json"], s.opts);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.removed.map((x: { path: string }) => x.path), [namesake]);
  assert.deepEqual(out.kept.map((k: { path: string; reason: string }) => [k.path, k.reason]), [
    [join(s.linkRoot, "Wf", "dep", "X"), "a dependency of Wf/top/D, which stays"],
  ]);
  assert.ok(present(s.dep));
});

Deno.test("system clean: a job whose lock a run holds under another spelling stays", async () => {
  await using d = await tempDir();
  const s = twoSpellings(d.path);
  const failed = join(d.path, "scout", "var", "jobs", "Wf", "top", "E");
  writeFileSync(
    failed + ".info",
    JSON.stringify({ status: "error", messages: ["RuntimeError: x"] }),
  );
  ageJob(failed, 40);
  // a run whose SCOUT_HOME is the real directory spells the job (and names its lock) so
  await using _holder = await lockHolder(failed, join(d.path, "scout", "tmp", "persist_locks"));
  for (const dry of [[], ["--dry-run"]]) {
    const r = await runMain(["system", "clean", "Wf", "--json", ...dry], s.opts);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.removed, [], dry.join());
    assert.deepEqual(
      out.kept.map((k: { shortPath: string; reason: string }) => [k.shortPath, k.reason]),
      [
        ["Wf/top/E", "in use: its lock is held"],
      ],
    );
  }
  assert.ok(present(failed));
});

Deno.test("system clean: a job that stays with an unreadable .info keeps the done jobs, naming it once", async () => {
  await using d = await tempDir();
  const s = twoSpellings(d.path, CUT_INFO);
  for (const dry of [["--dry-run"], []]) {
    const r = await runMain(["system", "clean", "Wf", "--older", "30d", ...dry], s.opts);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /^(would )?remove/m);
    assert.match(
      r.stderr,
      /^scout-ai: warning: Cannot tell which jobs Wf\/top\/D depends on: Info file "[^"]+\/Wf\/top\/D\.info" is not valid JSON; it stays \(used [^)]+\), and so does the done job that would have gone: any could be one of its dependencies/m,
    );
    assert.match(
      r.stderr,
      /^kept \S+\/Wf\/dep\/X \(done\): may be a dependency of Wf\/top\/D, whose \.info cannot be read$/m,
    );
    assert.ok(present(s.dep), dry.join());
  }
});

Deno.test("system clean: a job with an unreadable .info that goes itself goes first, then its dependencies", async () => {
  await using d = await tempDir();
  const s = twoSpellings(d.path, CUT_INFO);
  ageJob(s.top, 40);
  const r = await runMain(["system", "clean", "Wf", "--older", "30d", "--json"], s.opts);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).removed.map((x: { shortPath: string }) => x.shortPath), [
    "Wf/top/D",
    "Wf/dep/X",
  ]);
  assert.equal(present(s.top) || present(s.dep), false);
});

Deno.test("system clean: a job with an unreadable .info whose lock is held keeps the done jobs", async () => {
  await using d = await tempDir();
  const s = twoSpellings(d.path, CUT_INFO);
  ageJob(s.top, 40);
  await using _holder = await lockHolder(s.top, join(d.path, "scout", "tmp", "persist_locks"));
  const r = await runMain(["system", "clean", "Wf", "--older", "30d"], s.opts);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /^scout-ai: warning: Cannot tell which jobs Wf\/top\/D depends on: .* it stays \(in use: its lock is held\), and so does the done job/m,
  );
  assert.doesNotMatch(r.stderr, /by hand|Remove it/, "a job in use is not to be removed by hand");
  assert.ok(present(s.dep));
});
