/**
 * `--json` when a job is not there to report (R106-5): `workflow task --json`
 * whose dependency failed names the job that failed (`failed`) and says the
 * asked-for job's own status (`jobStatus`: `missing` when `--deploy local`
 * never started it, `error` serially, as `workflow info` shows it); `workflow info --json` for a job not found prints JSON
 * too (`status: "notfound"`), exit 1. Real CLI, real job store.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const NIGHT = `export default (api) => api.workflow("Night", { tasks: {
  bad: { type: "string", run: () => { throw new Error("the oven broke"); } },
  top: { type: "string", deps: ["bad"], run: () => "never" },
} });
`;

// serially the top job is set up, then records its dependency's error (workflow.md §4); the
// local deploy never starts it: nothing of it is on disk
const CASES = [[[], "error"], [["--deploy", "local"], "missing"]] as const;

for (const [deploy, topStatus] of CASES) {
  Deno.test(`R106-5: workflow task --json ${deploy.join(" ")}: the failed dependency is named, and the top job's own status`, async () => {
    await using d = await tempDir();
    userWorkflow(d.path, "Night", NIGHT);
    const r = await runScout(["workflow", "task", "Night", "top", "--json", ...deploy], {
      cwd: d.path,
      env: env(d.path),
    });
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout);
    const top = join(d.path, "var/jobs/Night/top/Default");
    const bad = join(d.path, "var/jobs/Night/bad/Default");
    assert.equal(doc.path, top);
    assert.equal(doc.status, "error", "the existing field stays");
    assert.match(doc.error, /Job "Night\/bad\/Default" failed: .*the oven broke/);
    assert.equal(doc.jobStatus, topStatus);
    const info = await runScout(["workflow", "info", top, "--json"], {
      cwd: d.path,
      env: env(d.path),
    });
    if (topStatus === "missing") assert.equal(JSON.parse(info.stdout).status, "notfound");
    else assert.equal(JSON.parse(info.stdout).status, topStatus, "as workflow info shows it");
    assert.deepEqual(doc.failed, { path: bad, shortPath: "Night/bad/Default", status: "error" });
  });
}

Deno.test("R106-5: workflow task --json whose own body fails names itself as failed", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Night", NIGHT);
  const r = await runScout(["workflow", "task", "Night", "bad", "--json"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 1, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.jobStatus, "error");
  assert.equal(doc.failed.path, doc.path);
});

Deno.test("R106-5: workflow info --json for a job not found prints JSON on stdout, exit 1", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Night", NIGHT);
  const r = await runScout(["workflow", "info", "Night/top/Default", "--json"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Job not found/);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.version, 1);
  assert.equal(doc.path, "Night/top/Default");
  assert.equal(doc.status, "notfound");
  assert.match(doc.error, /Job not found: "Night\/top\/Default"/);
});
