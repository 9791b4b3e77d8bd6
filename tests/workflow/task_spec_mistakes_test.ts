/**
 * Mistakes in a task definition, told instead of passing silently (R165-6):
 * a key a task spec does not know (`input:` for `inputs:`) fails the load,
 * naming it, the file and its line; a result whose text is no value of the
 * task's type (`integer` returning "not a number 1") is stored as written —
 * the job file as Scout keeps it — and warned about once, naming the job,
 * since loading it gives another value (0).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { loadWorkflowFile } from "../../src/workflow/load.ts";
import { resultMisfit } from "../../src/workflow/result_fit.ts";
import { isScoutError } from "../../src/errors.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

Deno.test("workflow(): a key a task spec does not know is an error naming it (R165-6)", () => {
  assert.throws(
    () =>
      workflow("Typo", {
        // deno-lint-ignore no-explicit-any
        tasks: { a: { input: { n: { type: "integer" } }, run: () => 1 } as any },
      }),
    /Task "Typo\/a" has an unknown key "input" \(did you mean "inputs"\?\): a task takes type, description, returns, extension, inputs, deps, run/,
  );
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => workflow("Typo2", { tasks: { a: { run: () => 1, cache: true } as any } }),
    /Task "Typo2\/a" has an unknown key "cache": a task takes/,
  );
});

const TYPO = `export default (api) => api.workflow("Bad", {
  tasks: {
    a: {
      type: "string",
      input: { n: api.input.integer() },
      run: ({ n }) => \`n=\${n}\`,
    },
  },
});
`;

Deno.test("a workflow file whose task has an unknown key fails to load, naming file and line (R165-6)", async () => {
  await using d = await tempDir();
  const file = join(userWorkflow(d.path, "Bad", TYPO), "workflow.ts");
  await assert.rejects(loadWorkflowFile(file), (e) => {
    assert.ok(isScoutError(e, "workflow_load"));
    assert.equal(e.file, file);
    assert.equal(e.line, 1);
    assert.match(e.message, /unknown key "input" \(did you mean "inputs"\?\)/);
    return true;
  });
  const r = await runScout(["workflow", "task", "Bad", "a", "--n", "3"], {
    cwd: d.path,
    env: env(join(d.path, "home")),
  });
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /unknown key "input".*workflow\.ts:1\)\n$/);
});

Deno.test("resultMisfit: text that is no value of an integer, float or boolean type (R165-6)", () => {
  assert.deepEqual(resultMisfit("not a number 1", "integer"), {
    text: "not a number 1",
    type: "integer",
    loaded: 0,
  });
  for (const [text, type] of [["5\n", "integer"], ["-3", "integer"], ["1.5", "float"]]) {
    assert.equal(resultMisfit(text!, type!), null, `${type} ${text}`);
  }
  for (const [text, type] of [["1e-06", "float"], ["no", "boolean"], ["true", "boolean"]]) {
    assert.equal(resultMisfit(text!, type!), null, `${type} ${text}`);
  }
  assert.equal(resultMisfit("", "integer"), null, "an empty result");
  assert.equal(resultMisfit("anything", "string"), null);
  assert.equal(resultMisfit("2.5", "integer")?.loaded, 2);
  assert.equal(resultMisfit("maybe", "boolean")?.loaded, false);
  assert.deepEqual(resultMisfit("1\ntwo\n3", "integer_array"), {
    text: "two",
    type: "integer",
    loaded: 0,
  });
  assert.equal(resultMisfit("1\n2\n", "integer_array"), null);
});

const BAD4 = `export default (api) => api.workflow("Bad4", {
  tasks: {
    a: { type: "integer", run: () => "not a number 1" },
    b: { type: "string", deps: ["a"], run: async (_i, job) => \`a=\${await job.load("a")}\` },
    good: { type: "integer", run: () => "5\\n" },
  },
});
`;

Deno.test("a result that is no value of its type is kept as written and warned about once, naming the job (R165-6)", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Bad4", BAD4);
  const opts = { cwd: d.path, env: env(join(d.path, "home")) };
  const b = await runScout(["workflow", "task", "Bad4", "b"], opts);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(b.stdout, "a=0\n", "Scout's loading rule, unchanged");
  const warning =
    /^scout-ai: warning: Job "Bad4\/a\/Default" returned "not a number 1", which is no integer: its result file keeps the text, and loading it gives 0$/m;
  assert.match(b.stderr, warning);
  assert.equal(b.stderr.split("\n").filter((l) => l.includes("Bad4/a/Default")).length, 1);
  const path = await runScout(["workflow", "task", "Bad4", "a", "--print-path"], opts);
  assert.equal(
    readFileSync(path.stdout.trim(), "utf8"),
    "not a number 1",
    "the file as Scout keeps it",
  );
  assert.doesNotMatch(path.stderr, /warning/, "a done job is not saved again");
  const good = await runScout(["workflow", "task", "Bad4", "good", "--json"], opts);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(good.stderr, "");
  assert.match(good.stdout, /"result":5\b/);
});
