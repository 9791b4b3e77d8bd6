/**
 * A dependency on a task the workflow does not define is a mistake in the
 * workflow file, told as such: it names the task that depends on it (R75-6a).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { brokenDependencies } from "../../src/workflow/mod.ts";
import { createJob } from "../../src/workflow/job.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const BAD_DEP = `export default (api) => api.workflow("BadDep", { tasks: {
  a: { type: "string", deps: ["nosuch"], run: () => "a" },
  b: { type: "string", run: () => "b" },
} });
`;

Deno.test("a dependency on a task the workflow does not define names the dependent task (R75-6a)", async () => {
  await using d = await tempDir();
  const wf = workflow("BadDep", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      a: { type: "string", deps: ["nosuch"], run: () => "a" },
      b: { type: "string", deps: ["a"], run: () => "b" },
      ok: { type: "string", run: () => "ok" },
    },
  });
  const message = 'Task "a" depends on "nosuch", which workflow "BadDep" does not define ' +
    "(its tasks: a, b, ok)";
  assert.throws(() => createJob(wf, "a"), (e) => {
    assert.ok(isScoutError(e, "task_not_found"));
    assert.equal(e.message, message);
    assert.equal(e.dependent, "BadDep/a");
    return true;
  });
  // through a dependency too, and the help's list of what is broken
  assert.throws(() => createJob(wf, "b"), { message });
  assert.deepEqual(brokenDependencies(wf, "a"), [message]);
  assert.deepEqual(brokenDependencies(wf, "ok"), []);
  assert.equal(createJob(wf, "ok").name, "Default"); // the workflow's other tasks work
});

Deno.test("workflow task: the broken task fails naming its file, its help warns, the other tasks run (R75-6a)", async () => {
  await using d = await tempDir();
  const dir = userWorkflow(d.path, "BadDep", BAD_DEP);
  const run = (args: string[]) =>
    runMain(["workflow", "task", "BadDep", ...args], { cwd: d.path, env: env(d.path) });
  const a = await run(["a"]);
  assert.equal(a.code, 1);
  assert.equal(
    a.stderr,
    'scout-ai: Task "a" depends on "nosuch", which workflow "BadDep" does not define ' +
      `(its tasks: a, b) (${join(dir, "workflow.ts")})\n`,
  );
  const help = await run(["a", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stderr, /^scout-ai: warning: Task "a" depends on "nosuch", which workflow/);
  assert.match(help.stdout, /^Usage: scout-ai workflow task BadDep a/);
  const b = await run(["b"]);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(b.stdout, "b\n");
});
