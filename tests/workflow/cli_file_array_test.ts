/**
 * A `file_array` input's elements that name existing files become absolute,
 * as a `file` input's value does, so the job name digests each file's content
 * ([TS-FIX], review R90-1 of R85-2). Ruby's `Task.format_input` leaves them as
 * given and `Misc.digest_str` digests a relative name as its quoted text
 * (`[['data.txt'], nil]`): two directories' `data.txt`, or one edited between
 * runs, would share one job and the second run be served the first's result.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

const WF = `import { readFileSync } from "node:fs";
export default (api) => api.workflow("Misc", { tasks: {
  misc2: { type: "string", inputs: { files: api.input.arrayOf("file"), one: api.input.file() },
    run: ({ files, one }) =>
      JSON.stringify([files, one, (files ?? []).map((f) => readFileSync(f, "utf8").trim())]) } } });`;

Deno.test("workflow task: file_array elements become absolute; two directories' data.txt are two jobs ([TS-FIX], R90-1)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Misc", WF);
  const home = env(d.path);
  const paths: string[] = [];
  for (const [sub, text] of [["d1", "one"], ["d2", "two"]]) {
    const cwd = join(d.path, sub!);
    mkdirSync(cwd);
    writeFileSync(join(cwd, "data.txt"), text + "\n");
    // a real process in each directory: relative names resolve against it
    const r = await runScout(
      ["workflow", "task", join(d.path, "workflows", "Misc"), "misc2", "--files", "data.txt"],
      { cwd, env: { ...home, SCOUT_HOME: join(d.path, ".scout") } },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, JSON.stringify([[join(cwd, "data.txt")], null, [text]]) + "\n");
    const p = await runScout(
      [
        "workflow",
        "task",
        join(d.path, "workflows", "Misc"),
        "misc2",
        "--files",
        "data.txt",
        "--print-path",
      ],
      { cwd, env: { ...home, SCOUT_HOME: join(d.path, ".scout") } },
    );
    paths.push(p.stdout.trim());
    assert.deepEqual(readInfo(p.stdout.trim())?.inputs, [[join(cwd, "data.txt")], null]);
  }
  assert.notEqual(paths[0], paths[1]);
});

Deno.test("workflow task: a file input becomes absolute too", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Misc", WF);
  writeFileSync(join(d.path, "data.txt"), "hi\n");
  const r = await runMain(["workflow", "task", "Misc", "misc2", "--one", "data.txt"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, JSON.stringify([null, join(d.path, "data.txt"), []]) + "\n");
});
