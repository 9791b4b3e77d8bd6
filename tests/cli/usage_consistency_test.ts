/**
 * Small command-line inconsistencies (R81-14): `workflow task WF --json`
 * says where the JSON list is; `--cpus` without `--deploy local` is refused
 * as `--dry-run`/`--wait` without slurm are; `llm process --interval -1`
 * fails before announcing that it watches; an unknown task is a usage error
 * (exit 2) in `workflow mcp` as in `workflow task`.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
const HINT = "(run with --help for usage)\n";

function opts(dir: string) {
  return { cwd: dir, env: { SCOUT_HOME: join(dir, "scout"), HOME: dir, NO_COLOR: "1" } };
}

Deno.test("workflow task WF --json: a usage error naming the JSON listing (R81-14)", async () => {
  await using d = await tempDir();
  const r = await runMain(["workflow", "task", BAKING, "--json"], opts(d.path));
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    `scout-ai: Missing TASK after ${BAKING} (its tasks: whisk, batter, cake, broken; ` +
      `'scout-ai workflow list ${BAKING} --json' lists them as JSON)\n${HINT}`,
  );
  const listed = await runMain(["workflow", "list", BAKING, "--json"], opts(d.path));
  assert.equal(listed.code, 0, listed.stderr);
  const names = JSON.parse(listed.stdout).tasks.map((t: { name: string }) => t.name);
  assert.deepEqual(names, ["whisk", "batter", "cake", "broken"]);
});

Deno.test("--cpus without --deploy local is a usage error (R81-14)", async () => {
  await using d = await tempDir();
  for (const deploy of [[], ["--deploy", "serial"], ["--deploy", "slurm", "--dry-run"]]) {
    const r = await runMain(
      ["workflow", "task", BAKING, "cake", "--cpus", "2", ...deploy],
      opts(d.path),
    );
    assert.equal(r.code, 2, deploy.join(" "));
    const why = deploy.includes("slurm")
      ? " (a batch job's CPUs come from --deploy-rules: cpus)"
      : "";
    assert.equal(r.stderr, `scout-ai: --cpus goes with --deploy local${why}\n${HINT}`);
  }
});

Deno.test("llm process --interval -1: the usage error comes first, no 'watching' (R81-14)", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "q"));
  for (const kind of ["process", "process_queries"]) {
    const r = await runMain(["llm", kind, "q", "--interval", "-1"], opts(d.path));
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `scout-ai: --interval needs seconds > 0, got "-1"\n${HINT}`);
  }
});

Deno.test("an unknown task exits 2 in workflow mcp as in workflow task (R81-14)", async () => {
  await using d = await tempDir();
  const task = await runMain(["workflow", "task", BAKING, "nosuch"], opts(d.path));
  const mcp = await runMain(["workflow", "mcp", BAKING, "nosuch"], opts(d.path));
  assert.equal(task.code, 2);
  assert.equal(mcp.code, 2);
  assert.equal(mcp.stderr, task.stderr);
  assert.match(mcp.stderr, /^scout-ai: Task "nosuch" not found in workflow "Baking"/);
});
