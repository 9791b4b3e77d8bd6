/**
 * `workflow info --jobs-dir` run as a subprocess: repeatable, the directories
 * searched in order, as on `llm prov`; each checked (R94-7: the last one
 * given was the only one used).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";

const EXAMPLE_JOBS = join(ROOT, "fixtures", "provenance", "example", "jobs");

Deno.test("R94-7: workflow info takes --jobs-dir more than once, searched in order (the last one no longer wins alone)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home") } };
  const job = "Data/load/Default_5eed5eed99";
  for (const dirs of [[d.path, EXAMPLE_JOBS], [EXAMPLE_JOBS, d.path]]) {
    const r = await runScout(
      ["workflow", "info", job, "--json", ...dirs.flatMap((x) => ["--jobs-dir", x])],
      o,
    );
    assert.equal(r.code, 0, `${dirs}: ${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).path, join(EXAMPLE_JOBS, job));
  }
  const none = await runScout([
    "workflow",
    "info",
    "Data/load/Nothing",
    "--jobs-dir",
    d.path,
    "--jobs-dir",
    EXAMPLE_JOBS,
  ], o);
  assert.equal(none.code, 1);
  assert.match(none.stderr, new RegExp(`searched ${d.path}, ${EXAMPLE_JOBS}\\)`));
  const missing = await runScout(
    ["workflow", "info", job, "--jobs-dir", EXAMPLE_JOBS, "--jobs-dir", join(d.path, "nonexist")],
    o,
  );
  assert.equal(missing.code, 1, missing.stderr); // as a single one, and as on llm prov
  assert.match(missing.stderr, /Cannot use --jobs-dir ".*nonexist": no such directory/);
});
