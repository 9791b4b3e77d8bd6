/**
 * `--jobs-dir` given more than once (R128-8): `workflow list` lists the jobs
 * of every directory given, in order, as `workflow info` searches them (it
 * kept only the last one, without a word); the commands that use one jobs
 * directory (`workflow task`, `workflow mcp`, `system clean`) refuse a second
 * one as a usage error instead of dropping the first.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { homeIn, ROOT, runScout, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

Deno.test("R128-8: workflow list WORKFLOW takes --jobs-dir more than once and lists each one's jobs", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path } };
  const [a, b] = [join(d.path, "a"), join(d.path, "b")];
  for (const [dir, eggs] of [[a, "3"], [b, "5"]]) {
    const r = await runScout(
      ["workflow", "task", BAKING, "whisk", "--eggs", eggs!, "--jobs-dir", dir!, "--print-path"],
      o,
    );
    assert.equal(r.code, 0, r.stderr);
  }
  const r = await runScout(
    ["workflow", "list", BAKING, "--jobs-dir", a, "--jobs-dir", b, "--json"],
    o,
  );
  assert.equal(r.code, 0, r.stderr);
  const whisk = JSON.parse(r.stdout).tasks.find((t: { name: string }) => t.name === "whisk");
  const dirs = whisk.jobs.map((j: { path: string }) => j.path.split("/Baking/")[0]);
  assert.deepEqual(dirs, [a, b]);
  // each one checked, as workflow info does
  const missing = await runScout(
    ["workflow", "list", BAKING, "--jobs-dir", a, "--jobs-dir", join(d.path, "none")],
    o,
  );
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot use --jobs-dir ".*none": no such directory/);
  const help = await runScout(["workflow", "list", "--help"], o);
  assert.match(
    help.stdout.replace(/\s+/g, " "),
    /--jobs-dir <dir> .*\(repeatable; searched in order\)/,
  );
});

Deno.test("R128-8: a command that uses one jobs directory refuses a second --jobs-dir (exit 2)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path } };
  const twice = ["--jobs-dir", "a", "--jobs-dir", "b"];
  for (
    const args of [
      ["workflow", "task", BAKING, "whisk", ...twice],
      ["workflow", "mcp", BAKING, ...twice],
      ["system", "clean", "all", "--dry-run", ...twice],
    ]
  ) {
    const r = await runScout(args, o);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(
      r.stderr,
      'scout-ai: --jobs-dir given twice ("a", then "b"): this command uses one jobs directory\n' +
        "(run with --help for usage)\n",
    );
    assert.equal(r.stdout, "");
  }
});
