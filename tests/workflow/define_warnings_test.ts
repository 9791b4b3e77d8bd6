/**
 * What `workflow()` warns about, once, and Scout loads all the same (R126-6,
 * R126-8): a default that does not fit its input's type or a select's
 * options, and a dependency's `{fromInput}` naming an input its task does
 * not declare (the dependency still gets the name itself, §1.4 rule 4).
 */
import assert from "node:assert/strict";
import { input, workflow, type WorkflowSpec } from "../../src/workflow/define.ts";
import { withWarningSink } from "../../src/util/warn_once.ts";
import { homeIn, runScout, tempDir } from "../support/cli.ts";
import { userWorkflow } from "./cli_support.ts";

/** The warnings `workflow(name, spec)` tells. */
function warningsOf(name: string, spec: WorkflowSpec): string[] {
  const got: string[] = [];
  withWarningSink((m) => got.push(m), () => workflow(name, spec));
  return got;
}

Deno.test("workflow(): a default that does not fit its type or options is warned about, naming the input", () => {
  const got = warningsOf("DefaultsW", {
    tasks: {
      count: {
        inputs: {
          // deno-lint-ignore no-explicit-any
          n: input.integer({ default: "two" as any }),
          organism: input.select(["human", "mouse"], { default: "dog" }),
          ids: { type: "integer_array", default: ["a"] },
          ok: input.float({ default: 1.5 }),
          kind: input.select({ h: "human" }, { default: "human" }),
          list: input.arrayOf("string", { default: ["x"] }),
        },
        run: () => 0,
      },
    },
  });
  assert.deepEqual(got, [
    'Input "n" of task "DefaultsW/count" has the default "two", which does not fit its type ' +
    "integer; a job that leaves it out gets it as written",
    'Input "organism" of task "DefaultsW/count" has the default "dog", which is not one of its ' +
    'options "human", "mouse"; a job that leaves it out gets it as written',
    'Input "ids" of task "DefaultsW/count" has the default an array, which does not fit its type ' +
    "integer_array; a job that leaves it out gets it as written",
  ]);
});

Deno.test("workflow(): a {fromInput} naming no input of the task is warned about, with near names", () => {
  const got = warningsOf("FromW", {
    tasks: {
      align: { inputs: { sequence: input.string() }, run: () => "" },
      top: {
        inputs: { seq: input.string() },
        deps: [
          { task: "align", inputs: { sequence: { fromInput: "sequ" } } },
          // a declared input and a dependency's task name resolve: no warning
          { task: "align", jobname: "b", inputs: { sequence: { fromInput: "seq" } } },
          { task: "align", jobname: "c", inputs: { sequence: { fromInput: "align" } } },
          { task: "align", jobname: "d", inputs: { sequence: { fromInput: "zzz" } } },
        ],
        run: () => "",
      },
    },
  });
  assert.deepEqual(got, [
    'Dependency "align" of task "FromW/top" takes its input "sequence" from input "sequ", which ' +
    'task "top" does not declare: it gets the text "sequ" (Scout\'s rule); did you mean "seq"? ' +
    "(its inputs: seq)",
    'Dependency "align" of task "FromW/top" takes its input "sequence" from input "zzz", which ' +
    'task "top" does not declare: it gets the text "zzz" (Scout\'s rule) (its inputs: seq)',
  ]);
});

const DEMO = `export default (api) => api.workflow("Demo", { tasks: {
  count: { type: "integer",
    inputs: { n: api.input.integer({ default: "two" }),
      organism: api.input.select(["human", "mouse"], { default: "dog" }) },
    run: ({ n }) => n },
  align: { type: "string", inputs: { sequence: api.input.string() },
    run: ({ sequence }) => String(sequence) },
  top: { type: "string", inputs: { seq: api.input.string({ default: "AC" }) },
    deps: [{ task: "align", inputs: { sequence: { fromInput: "sequ" } } }],
    run: (_i, job) => job.load("align") } } });`;

Deno.test("workflow task: the definition's warnings reach stderr once, and the workflow still runs as Scout's", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Demo", DEMO);
  const opts = { cwd: d.path, env: homeIn(d.path) };
  const help = await runScout(["workflow", "task", "Demo", "count", "--help"], opts);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /--n <integer> +\(default: two\)/);
  const lines = help.stderr.trimEnd().split("\n");
  assert.equal(lines.filter((l) => l.includes('Input "n" of task "Demo/count"')).length, 1);
  assert.ok(
    lines.includes(
      'scout-ai: warning: Input "organism" of task "Demo/count" has the default "dog", which is ' +
        'not one of its options "human", "mouse"; a job that leaves it out gets it as written',
    ),
    help.stderr,
  );
  const top = await runScout(["workflow", "task", "Demo", "top"], opts);
  assert.equal(top.code, 0, top.stderr);
  assert.equal(top.stdout.trim(), "sequ"); // rule 4 kept: the name itself
  assert.match(
    top.stderr,
    /Dependency "align" of task "Demo\/top" takes its input "sequence" from input "sequ".*did you mean "seq"\?/,
  );
});
