/**
 * `workflow info` given a task directory (`Slow/nap/`) or a workflow's is no
 * job (R106-7): a usage error (exit 2) that names it and the task's jobs,
 * never a job with status `noinfo` and exit 0. A job is still found by its
 * path. Real CLI, jobs made by a real run of the Slow fixture.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { env } from "./cli_support.ts";

Deno.test("R106-7: workflow info on a task directory is a usage error naming its jobs; a job still shows", async () => {
  await using d = await tempDir();
  const e = { ...env(d.path), SLOW_SLEEP: "0" };
  const slow = join(ROOT, "fixtures/workflows/Slow");
  const ran = await runScout(["workflow", "task", slow, "nap", "--seconds", "0"], {
    cwd: d.path,
    env: e,
  });
  assert.equal(ran.code, 0, ran.stderr);
  for (const ref of ["Slow/nap/", "Slow/nap", join(d.path, "var/jobs/Slow/nap")]) {
    const r = await runScout(["workflow", "info", ref], { cwd: d.path, env: e });
    assert.equal(r.code, 2, `${ref}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /is a task directory, not a job \(give one of its jobs: "Default_/);
    assert.doesNotMatch(r.stderr, /noinfo/);
  }
  const wf = await runScout(["workflow", "info", "Slow/", "--json"], { cwd: d.path, env: e });
  assert.equal(wf.code, 2, wf.stdout + wf.stderr);
  assert.match(wf.stderr, /"Slow\/" is a directory, not a job/);
  const job = await runScout(["workflow", "info", "Slow/nap/Default", "--json"], {
    cwd: d.path,
    env: e,
  });
  assert.equal(job.code, 0, job.stderr);
  assert.equal(JSON.parse(job.stdout).status, "done");
});
