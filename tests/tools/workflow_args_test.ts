/**
 * A model's call of a workflow task's tool with a value that does not fit
 * the tool's schema is an error output that shows the value given — the
 * same text `workflow mcp` answers (tests/e2e/mcp_serve_inputs_test.ts) —
 * and runs no job (R126-5: the value was not shown). A real job store.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { workflowTools } from "../../src/tools/workflow.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { homeIn, tempDir } from "../support/cli.ts";

Deno.test("a tool call's invalid argument names the input, what it takes and the value given (R126-5)", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const wf = workflow("G", {
    jobsDir: join(d.path, "jobs"),
    tasks: {
      words: {
        type: "string",
        inputs: {
          min_len: input.integer({ description: "shortest word", default: 3 }),
          organism: input.select(["human", "mouse", "rat"], { default: "human" }),
        },
        run: ({ min_len, organism }) => (runs.push("ran"), `${organism} ${min_len}`),
      },
    },
  });
  const registry = toolRegistry(workflowTools(wf, undefined, [], { env: homeIn(d.path) }));
  const out = await runToolCalls([
    { name: "words", arguments: { min_len: "abc" }, id: "1" },
    { name: "words", arguments: { organism: "dog" }, id: "2" },
    { name: "words", arguments: { min_len: "5", organism: "rat" }, id: "3" },
  ], { registry });
  const envs = out.filter((_, i) => i % 2).map((m) => JSON.parse(String(m.content)));
  const exception = (i: number) => JSON.parse(envs[i].content).exception;
  assert.equal(
    exception(0),
    `Invalid arguments for 'words': "min_len" must be integer, got string "abc"`,
  );
  assert.equal(
    exception(1),
    `Invalid arguments for 'words': "organism" must be one of ["human","mouse","rat"], got "dog"`,
  );
  assert.equal(envs[2].content, "rat 5");
  assert.deepEqual(runs, ["ran"]);
  assert.equal(existsSync(join(d.path, "jobs/G/words/Default")), false);
});
