/**
 * `provenanceRoot` (`provenance.md` §10.1), the one rule `llm prov` and
 * ChatAnalyst use for where a walk starts: a job when `P.info` or `P.files`
 * exists, else a chat; the job roots given first, then the default ones.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isJobPath, provenanceRoot } from "../../src/provenance/jobs.ts";
import { tmp } from "./support.ts";

Deno.test("provenanceRoot: job by .info or .files, else chat; given job roots first, no duplicates", async () => {
  await using d = await tmp();
  const env = { SCOUT_HOME: join(d.path, "home"), HOME: d.path };
  const jobs = join(d.path, "jobs", "WF", "t");
  mkdirSync(jobs, { recursive: true });
  writeFileSync(join(jobs, "a.info"), "{}");
  mkdirSync(join(jobs, "b.files"));
  writeFileSync(join(jobs, "c"), "a bare result file is no job");
  const at = (given: string, jobsDirs: string[] = []) =>
    provenanceRoot(given, { cwd: d.path, env, jobsDirs });
  assert.equal(at("jobs/WF/t/a").rootType, "job");
  assert.equal(at("jobs/WF/t/b").rootType, "job");
  assert.equal(at("jobs/WF/t/c").rootType, "chat");
  assert.equal(at("x.chat").rootType, "chat");
  assert.equal(at("x.chat").path, join(d.path, "x.chat"));
  assert.deepEqual(
    ["a", "b", "c", "d"].map((n) => isJobPath(join(jobs, n))),
    [true, true, false, false],
  );
  const roots = at("x.chat", ["jobs", "var/jobs", "jobs"]).jobRoots;
  assert.deepEqual(roots, [
    join(d.path, "jobs"),
    join(d.path, "var", "jobs"),
    ...roots.slice(2),
  ]);
  assert.equal(new Set(roots).size, roots.length, "no root twice");
  assert.ok(roots.includes(join(env.SCOUT_HOME, "var", "jobs")), "the default roots follow");
});
