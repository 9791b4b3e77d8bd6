import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { identifyJobPath } from "../../src/workflow/identify.ts";
import {
  jobReferenceCandidates,
  jobRoots,
  jobsIn,
  jobStore,
  lockPathFor,
  resolveJobReference,
  shortPath,
  tmpPath,
} from "../../src/workflow/store.ts";
import { md5hex } from "../../src/util/hash.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("jobStore: SCOUT_HOME/var/jobs, cwd first, explicit dir wins", () => {
  const s = jobStore({ env: { SCOUT_HOME: "/tmp/sh", HOME: "/h" }, cwd: "/w" });
  assert.deepEqual(s.roots, ["/w/var/jobs", "/tmp/sh/var/jobs"]);
  assert.equal(s.createRoot, "/tmp/sh/var/jobs");
  assert.equal(s.lockDir, "/tmp/sh/tmp/persist_locks");
  const d = jobStore({ env: { HOME: "/h" }, cwd: "/w" });
  assert.equal(d.createRoot, "/h/.scout/var/jobs");
  const e = jobStore({ env: { SCOUT_HOME: "/tmp/sh", SCOUT_JOBS_DIR: "jobs" }, cwd: "/w" });
  assert.deepEqual(e.roots, ["/w/jobs"]);
  const o = jobStore({ env: { SCOUT_HOME: "/tmp/sh" }, cwd: "/w", jobsDir: "/x" });
  assert.deepEqual([o.roots, o.createRoot], [["/x"], "/x"]);
  assert.deepEqual(jobRoots({ env: { SCOUT_HOME: "/s", HOME: "/h" }, cwd: "/w" }), [
    "/w/var/jobs",
    "/s/var/jobs",
    "/h/.rbbt/var/jobs",
  ]);
});

Deno.test("lock path: Scout's naming, spec example and the 160-char rule", () => {
  assert.equal(
    lockPathFor("/home/u/.scout/var/jobs/Slow/nap/Default", "/l"),
    "/l/·home·u·.scout·var·jobs·Slow·nap·Default.persist.lock",
  );
  assert.equal(lockPathFor("/a b/c\td", "/l"), "/l/·a_b·c_d.persist.lock");
  // Ruby's /\s/ is ASCII whitespace only: U+00A0, U+2003, U+0085, U+2028 stay (R80-10)
  assert.equal(
    lockPathFor("/w/a\u00a0b\u2003c\vd\fe\u0085f\u2028g", "/l"),
    "/l/·w·a\u00a0b\u2003c_d_e\u0085f\u2028g.persist.lock",
  );
  const long = "/" + "x".repeat(200);
  const n = "·" + "x".repeat(200) + ".persist";
  assert.equal(lockPathFor(long, "/l"), "/l/" + n.slice(0, 151) + md5hex(n.slice(151)) + ".lock");
});

Deno.test("short path, tmp path and Scout identity", () => {
  assert.equal(shortPath("/h/.scout/var/jobs/Baking/whisk/Default"), "Baking/whisk/Default");
  assert.equal(shortPath("Baking/whisk/Default.chat"), "Baking/whisk/Default.chat");
  assert.equal(tmpPath("/j/WF/t/Default.json"), "/j/WF/t/.Default.json");
  const store = jobStore({ env: { SCOUT_HOME: "/s" }, cwd: "/w", jobsDir: "/tmp/custom" });
  assert.equal(
    identifyJobPath("/tmp/custom/Dep/a/Default_x", store, { HOME: "/h" }),
    "var/jobs/Dep/a/Default_x",
  );
  assert.equal(identifyJobPath("/h/other/Dep/a/X", store, { HOME: "/h" }), "~/other/Dep/a/X");
  // Ruby: only Scout's roots (not any var/jobs) are relative (R85-1)
  assert.equal(
    identifyJobPath("/srv/var/jobs/W/t/N", store, { HOME: "/h" }),
    "/srv/var/jobs/W/t/N",
  );
  assert.equal(identifyJobPath("/srv/W/t/N", store, { HOME: "/h" }), "/srv/W/t/N");
});

Deno.test("resolveJobReference: short paths, .info-only jobs, relocation by last 3 components", async () => {
  await using d = await tempDir();
  const root = join(d.path, "jobs");
  mkdirSync(join(root, "WF", "t"), { recursive: true });
  writeFileSync(join(root, "WF", "t", "Done"), "x");
  writeFileSync(join(root, "WF", "t", "Failed.info"), "{}");
  const opts = { roots: [root], cwd: d.path };
  assert.equal(resolveJobReference("WF/t/Done", opts), join(root, "WF", "t", "Done"));
  assert.equal(resolveJobReference("WF/t/Failed", opts), join(root, "WF", "t", "Failed"));
  assert.equal(
    resolveJobReference("/home/u/.scout/var/jobs/WF/t/Done", opts),
    join(root, "WF", "t", "Done"),
  );
  assert.equal(resolveJobReference("WF/t/Nope", opts), null);
  assert.equal(resolveJobReference("  ", opts), null);
});

Deno.test("jobReferenceCandidates: cwd then each root, then the last 3 components per root", () => {
  const opts = { roots: ["/r1", "/r2"], cwd: "/w", env: { HOME: "/h" } };
  assert.deepEqual(jobReferenceCandidates("WF/t/N", opts), [
    "/w/WF/t/N",
    "/r1/WF/t/N",
    "/r2/WF/t/N",
    "/r1/WF/t/N",
    "/r2/WF/t/N",
  ]);
  assert.deepEqual(jobReferenceCandidates("/old/jobs/WF/t/N", opts), [
    "/old/jobs/WF/t/N",
    "/r1/WF/t/N",
    "/r2/WF/t/N",
  ]);
  assert.deepEqual(jobReferenceCandidates("~/j/N", opts), ["/h/j/N", "/r1/h/j/N", "/r2/h/j/N"]);
  assert.deepEqual(jobReferenceCandidates("N", opts), ["/w/N", "/r1/N", "/r2/N"]);
  assert.deepEqual(jobReferenceCandidates(" ", opts), []);
});

Deno.test("jobsIn: one path per job (result, .info or both); no .files, .lock or dot names", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "WF", "t");
  mkdirSync(join(dir, "Done.files"), { recursive: true });
  for (const n of ["Done", "Done.info", "Failed.info", "Bare.txt", "x.lock", ".Tmp.txt"]) {
    writeFileSync(join(dir, n), "");
  }
  assert.deepEqual(jobsIn(dir), ["Bare.txt", "Done", "Failed"].map((n) => join(dir, n)));
  assert.deepEqual(jobsIn(join(d.path, "WF", "none")), []);
});

Deno.test("jobStore: the cwd's var/jobs that is SCOUT_HOME's through a link is one root, spelled as SCOUT_HOME's (R123-1)", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "scout", "var", "jobs"), { recursive: true });
  Deno.symlinkSync(join(d.path, "scout"), join(d.path, "link"));
  // SCOUT_HOME a link, the cwd the real directory behind it (process.cwd() is a real path)
  const s = jobStore({ env: { SCOUT_HOME: join(d.path, "link") }, cwd: join(d.path, "scout") });
  assert.deepEqual(s.roots, [join(d.path, "link", "var", "jobs")]);
  // a cwd of its own keeps its root first
  mkdirSync(join(d.path, "proj", "var", "jobs"), { recursive: true });
  const t = jobStore({ env: { SCOUT_HOME: join(d.path, "link") }, cwd: join(d.path, "proj") });
  assert.deepEqual(t.roots, [
    join(d.path, "proj", "var", "jobs"),
    join(d.path, "link", "var", "jobs"),
  ]);
});
