/**
 * `workflow list --jobs-dir DIR` without a WORKFLOW (or with a directory of
 * workflows) lists workflows and their task names — no jobs — so the option
 * had nothing to act on and was dropped without a word: it is refused as a
 * usage error (exit 2, nothing on stdout), naming the form that lists a
 * jobs directory's jobs. With a WORKFLOW it lists that directory's jobs, as
 * before. Real `scout-ai` subprocesses.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { homeIn, ROOT, runScout, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

Deno.test("workflow list --jobs-dir without a WORKFLOW is a usage error, not ignored (exit 2)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path } };
  const jobs = join(d.path, "jobs");
  mkdirSync(jobs);
  for (
    const args of [
      ["workflow", "list", "--jobs-dir", jobs],
      ["workflow", "list", "--jobs-dir", jobs, "--json"],
      ["workflow", "list", join(ROOT, "fixtures", "workflows"), "--jobs-dir", jobs],
    ]
  ) {
    const r = await runScout(args, o);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, "", args.join(" "));
    assert.match(
      r.stderr,
      /^scout-ai: --jobs-dir lists a workflow's jobs: .*workflow list WORKFLOW --jobs-dir DIR/m,
    );
  }
});

Deno.test("workflow list WORKFLOW --jobs-dir still lists that directory's jobs", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path } };
  const jobs = join(d.path, "jobs");
  const run = await runScout(
    ["workflow", "task", BAKING, "whisk", "--jobs-dir", jobs, "--print-path"],
    o,
  );
  assert.equal(run.code, 0, run.stderr);
  const r = await runScout(["workflow", "list", BAKING, "--jobs-dir", jobs, "--json"], o);
  assert.equal(r.code, 0, r.stderr);
  const whisk = JSON.parse(r.stdout).tasks.find((t: { name: string }) => t.name === "whisk");
  assert.deepEqual(whisk.jobs.map((j: { path: string }) => j.path), [run.stdout.trim()]);
});
