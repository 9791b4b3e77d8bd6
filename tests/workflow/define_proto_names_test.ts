/**
 * Names in a workflow's definition spelled like Object.prototype members
 * (R112-5): export lists and exported tasks, a dependency, a README's
 * `## <task>` section are looked up among the workflow's own; tasks called
 * `__proto__`, `constructor`, `toString` are tasks like any, under Bun (the
 * binary's runtime) as under Deno; tasks or inputs written `__proto__: …`,
 * which JavaScript reads as the object's prototype, are refused.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { recursiveInputs, workflow } from "../../src/workflow/define.ts";
import { loadWorkflow } from "../../src/workflow/load.ts";
import { tempDir } from "../support/cli.ts";
import { runScript, RUNTIMES } from "../support/runtimes.ts";

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

const TASKS_SCRIPT = `import { workflow } from "./src/workflow/define.ts";
import { parseWorkflowDoc } from "./src/workflow/docs.ts";
import { createJob } from "./src/workflow/job.ts";
import { runJob } from "./src/workflow/run.ts";
const dir = process.env.PROTO_HOME;
const wf = workflow("ProtoTasks", {
  jobsDir: dir + "/jobs",
  tasks: {
    ["__proto__"]: { type: "string", run: () => "p" },
    constructor: { type: "string", run: () => "c" },
    toString: {
      type: "string",
      deps: ["__proto__", "constructor"],
      run: async (_i, job) => (await job.load("__proto__")) + (await job.load("constructor")),
    },
  },
  exports: { exec: ["__proto__"] },
});
const job = createJob(wf, "toString", { env: { SCOUT_HOME: dir + "/home" } });
const doc = parseWorkflowDoc("# T\\n\\n# Tasks\\n\\n## __proto__\\n\\nThe proto task\\n");
console.log(JSON.stringify({
  tasks: Object.keys(wf.tasks),
  exec: wf.exports.exec,
  result: await runJob(job),
  deps: job.deps.map((d) => d.shortPath),
  doc: doc.tasks["__proto__"] ?? null,
}));`;

Deno.test("tasks called __proto__, constructor, toString are tasks like any, under Bun and Deno", async () => {
  for (const runtime of RUNTIMES) {
    await using d = await tempDir();
    // before, under Bun: `Exported task "__proto__" not found` (the task was made the
    // prototype of the tasks record); without the export, tasks ["constructor", "toString"]
    // and `Task "__proto__" not found`; the README section's text lost (doc null)
    assert.deepEqual(await runScript(runtime, TASKS_SCRIPT, { PROTO_HOME: d.path }), {
      tasks: ["__proto__", "constructor", "toString"],
      exec: ["__proto__"],
      result: "pc",
      deps: ["ProtoTasks/__proto__/Default", "ProtoTasks/constructor/Default"],
      doc: "The proto task",
    }, runtime);
  }
});

Deno.test("tasks or inputs written `__proto__: …` are refused: JavaScript makes them the object's prototype", () => {
  // what the literal `{ __proto__: {…}, t }` is, in every runtime
  const literal = <T extends object>(proto: object, own: T): T => Object.setPrototypeOf(own, proto);
  const run = () => "ok";
  // before: accepted, the task (the input) missing without a word
  assert.throws(
    () => workflow("ProtoLiteral", { tasks: literal({ type: "string", run }, { t: { run } }) }),
    (e) =>
      isScoutError(e, "invalid_input") &&
      e.message === 'The tasks of workflow "ProtoLiteral" are written with `__proto__: …`, ' +
          "which names none (JavaScript sets the object's prototype): write " +
          '["__proto__"]: … for one called __proto__',
  );
  const inputs = literal({ type: "string" }, {});
  assert.throws(
    () => workflow("ProtoLiteralInput", { tasks: { t: { inputs, run } } as never }),
    (e) =>
      isScoutError(e, "invalid_input") &&
      e.message.startsWith('The inputs of task "ProtoLiteralInput/t" are written with'),
  );
  // a record without a prototype is one with own keys only: accepted
  const own = Object.assign(Object.create(null), { t: { run } });
  assert.deepEqual(Object.keys(workflow("ProtoNull", { tasks: own }).tasks), ["t"]);
});
