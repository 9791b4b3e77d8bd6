/**
 * Mistakes in a workflow file, told as such (R75-6): a runtime error of the
 * file's code gives its line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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
