/**
 * Mistakes in a workflow file, told as such (R75-6): a runtime error of the
 * file's code gives its line; a workflow without a name says so.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { loadWorkflowFile } from "../../src/workflow/load.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

Deno.test("a runtime error in a workflow file's code gives the file's line (R75-6b)", async () => {
  await using d = await tempDir();
  const top = join(
    userWorkflow(d.path, "Top", "export default (api) => api;\nfoo.bar();\n"),
    "workflow.ts",
  );
  await assert.rejects(loadWorkflowFile(top), (e) => {
    assert.ok(isScoutError(e, "workflow_load"));
    assert.equal(e.file, top);
    assert.equal(e.line, 2);
    assert.match(e.message, /foo is not defined/);
    return true;
  });
  const inFactory = join(
    userWorkflow(
      d.path,
      "Fact",
      'export default (api) => {\n\n  foo.bar();\n  return api.workflow("Fact", { tasks: {} });\n};\n',
    ),
    "workflow.ts",
  );
  await assert.rejects(loadWorkflowFile(inFactory), (e) => {
    assert.ok(isScoutError(e, "workflow_load"));
    assert.equal(e.line, 3);
    return true;
  });
  const r = await runMain(["workflow", "task", "Top"], { cwd: d.path, env: env(d.path) });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(`foo is not defined \\(${top.replaceAll("/", "\\/")}:2\\)\\n$`),
  );
});

Deno.test("workflow() without a name says the name is missing (R75-6c)", async () => {
  assert.throws(
    () => workflow({ tasks: {} } as unknown as string, { tasks: {} }),
    /^ScoutError: The workflow's name is missing: workflow\(\) was given an object where its name goes/,
  );
  await using d = await tempDir();
  userWorkflow(
    d.path,
    "NoName",
    'export default (api) => api.workflow({ tasks: { a: { run: () => "a" } } });\n',
  );
  const r = await runMain(["workflow", "task", "NoName", "a"], { cwd: d.path, env: env(d.path) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /failed while defining its workflow: The workflow's name is missing/);
  assert.doesNotMatch(r.stderr, /object Object/);
});
