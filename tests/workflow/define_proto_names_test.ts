/**
 * Names in a workflow's definition spelled like Object.prototype members
 * (R112-5): export lists and exported tasks, a dependency, a README's
 * `## <task>` section are looked up among the workflow's own.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { recursiveInputs, workflow } from "../../src/workflow/define.ts";
import { loadWorkflow } from "../../src/workflow/load.ts";
import { tempDir } from "../support/cli.ts";

const tasks = { t: { type: "string" as const, run: () => "ok" } };

Deno.test("exports naming a list or a task like an Object.prototype member are refused (R112-5)", () => {
  for (const kind of ["toString", "constructor", "hasOwnProperty"]) {
    // before: a TypeError, `out[kind].push is not a function`
    assert.throws(
      () => workflow("ProtoExportsList", { tasks, exports: { [kind]: ["t"] } as never }),
      (e) =>
        isScoutError(e, "invalid_input") && e.message.includes(`Unknown export list "${kind}"`),
    );
  }
  for (const name of ["toString", "valueOf", "constructor"]) {
    // before: accepted, the workflow exporting a task it does not have
    assert.throws(
      () => workflow("ProtoExportsTask", { tasks, exports: { exec: [name] } }),
      (e) =>
        isScoutError(e, "task_not_found") &&
        e.message === `Exported task "${name}" not found in workflow "ProtoExportsTask"`,
    );
  }
  assert.deepEqual(
    workflow("ProtoExportsOk", { tasks, exports: { exec: ["t"] } }).exports.exec,
    ["t"],
  );
});

Deno.test("a dependency on a task named like an Object.prototype member is a missing one (R112-5)", () => {
  const wf = workflow("ProtoDeps", {
    tasks: { t: { type: "string", inputs: {}, deps: ["toString"], run: () => "ok" } },
  });
  // before: a TypeError, `t.inputs is not iterable` (Object.prototype.toString taken for the task)
  assert.deepEqual(recursiveInputs(wf, "t"), []);
});

Deno.test("a README section named like an Object.prototype member describes no task (R112-5)", async () => {
  await using d = await tempDir();
  const dir = join(d.path, "workflows", "ProtoDocs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "workflow.js"),
    "export default (api) => api.workflow('ProtoDocs', { tasks: { a: { run: () => 1 } } });",
  );
  writeFileSync(
    join(dir, "README.md"),
    "P\n\n# Tasks\n\n## a\n\nThe a task\n\n## valueOf\n\nNone\n",
  );
  const wf = await loadWorkflow("ProtoDocs", {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "h") },
  });
  assert.equal(wf.tasks.a!.description, "The a task");
  // before: the text was set on Object.prototype.valueOf, for every object of the process
  assert.equal(Object.hasOwn(Object.prototype.valueOf, "description"), false);
});
