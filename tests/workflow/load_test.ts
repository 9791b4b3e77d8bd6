import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  findWorkflowFile,
  listWorkflowFiles,
  loadWorkflow,
  loadWorkflowFile,
} from "../../src/workflow/load.ts";
import { parseWorkflowDoc } from "../../src/workflow/docs.ts";
import { ROOT, tempDir } from "../support/cli.ts";
import { isScoutError } from "../../src/errors.ts";

Deno.test("docs: title, description up to # Tasks, ## task sections", () => {
  const doc = parseWorkflowDoc(
    "# Baking\n\nMakes cakes.\nWith eggs.\n\n# TASKS\n\n## whisk\n\nWhisk eggs.\n\nTwice.\n\n## bake\nIn the oven\n",
  );
  assert.deepEqual(doc, {
    title: "Baking",
    description: "Makes cakes.\nWith eggs.",
    tasks: { whisk: "Whisk eggs.\n\nTwice.", bake: "In the oven" },
  });
  assert.deepEqual(parseWorkflowDoc(""), { title: "", description: "", tasks: {} });
});

Deno.test("loading: bundled Baking with docs applied; cached by absolute path; exports", async () => {
  const file = join(ROOT, "fixtures/workflows/Baking/workflow.ts");
  const wf = await loadWorkflow(join(ROOT, "fixtures/workflows/Baking"));
  assert.equal(wf.name, "Baking");
  assert.equal(wf.file, file);
  assert.equal(wf.tasks.whisk!.description, "Whisk some eggs.");
  assert.deepEqual(wf.exports, {
    exec: ["whisk"],
    synchronous: [],
    asynchronous: ["batter", "cake"],
    stream: [],
  });
  assert.equal(await loadWorkflowFile(file), wf);
});

Deno.test("finding: ./workflows before $SCOUT_HOME/workflows; README.md docs; unknown → suggestions", async () => {
  await using d = await tempDir();
  const local = join(d.path, "workflows", "Alpha");
  const home = join(d.path, "home", "workflows", "Beta");
  mkdirSync(local, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(local, "workflow.js"),
    "export default (api) => api.workflow('Alpha', { tasks: { a: { run: () => 1 } } });",
  );
  writeFileSync(join(home, "workflow.mjs"), "export default { tasks: { b: { run: () => 2 } } };");
  writeFileSync(join(home, "README.md"), "Beta flow\n\nDoes b.\n\n# Tasks\n\n## b\n\nThe b task\n");
  const opts = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home") } };
  assert.equal(findWorkflowFile("Alpha", opts), join(local, "workflow.js"));
  assert.deepEqual(listWorkflowFiles(opts).map((w) => w.name), ["Alpha", "Beta"]);
  const beta = await loadWorkflow("Beta", opts);
  assert.equal(beta.name, "Beta");
  assert.equal(beta.title, "Beta flow");
  assert.equal(beta.tasks.b!.description, "The b task");
  assert.throws(
    () => findWorkflowFile("Alhpa", opts),
    (e) => isScoutError(e, "workflow_not_found") && /did you mean "Alpha"\?/.test(e.message),
  );
});

Deno.test("finding: a workflow.ts that is a directory or a link to nothing is an error naming it, not 'not found'", async () => {
  await using d = await tempDir();
  const opts = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home") } };
  mkdirSync(join(d.path, "workflows", "Dir", "workflow.ts"), { recursive: true });
  mkdirSync(join(d.path, "workflows", "Gone"), { recursive: true });
  symlinkSync(join(d.path, "nowhere.ts"), join(d.path, "workflows", "Gone", "workflow.ts"));
  const dir = join(d.path, "workflows", "Dir", "workflow.ts");
  assert.throws(
    () => findWorkflowFile("Dir", opts),
    (e) => isScoutError(e, "io") && e.message === `Is a directory, not a file: "${dir}"`,
  );
  assert.throws(
    () => findWorkflowFile("./workflows/Gone", opts),
    (e) =>
      isScoutError(e, "io") && /^Dangling symbolic link: ".*Gone\/workflow\.ts"/.test(e.message),
  );
  assert.deepEqual(listWorkflowFiles(opts), []); // a listing passes them by
});
