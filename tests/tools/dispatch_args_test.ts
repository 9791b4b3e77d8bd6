/**
 * Tool-call arguments that are valid JSON but not an object (R88-6): `[1,2,3]`,
 * `42`, `null`, `"s"` as a provider sends them (a string, parsed as the
 * backends parse it) are answered with an error output, as text that is not
 * JSON is; a real workflow task whose inputs all have defaults does not run.
 */
import assert from "node:assert/strict";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { parseArguments } from "../../src/tools/calls.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { workflowTools } from "../../src/tools/workflow.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { homeIn, tempDir } from "../support/cli.ts";

function baking(jobsDir: string, runs: string[]) {
  return workflow("Baking", {
    jobsDir,
    exports: { exec: ["whisk"] },
    tasks: {
      whisk: {
        type: "string",
        inputs: { eggs: input.integer({ default: 2, description: "Eggs" }) },
        run: ({ eggs }) => {
          runs.push(`whisk ${eggs}`);
          return `Whisked ${eggs}`;
        },
      },
    },
  });
}

Deno.test("dispatch (R88-6): JSON arguments that are not an object are an error output; the task does not run", async () => {
  await using d = await tempDir();
  const runs: string[] = [];
  const wf = baking(d.path, runs);
  const registry = toolRegistry(workflowTools(wf, "whisk", [], { env: homeIn(d.path) }));
  const raws = ["[1,2,3]", "42", "null", '"s"', "true", "{not json"];
  const out = await runToolCalls(
    raws.map((raw, i) => ({ name: "whisk", arguments: parseArguments(raw), id: `c${i}` })),
    { registry },
  );
  const envs = out.filter((_, i) => i % 2 === 1).map((m) => JSON.parse(String(m.content)));
  for (const e of envs) assert.equal(e.error, "error", `an error output, not ${e.content}`);
  const msgs = envs.map((e) => JSON.parse(e.content).exception as string);
  assert.deepEqual(msgs, [
    "The arguments of 'whisk' must be a JSON object, got an array",
    "The arguments of 'whisk' must be a JSON object, got a number",
    "The arguments of 'whisk' must be a JSON object, got null",
    "The arguments of 'whisk' must be a JSON object, got a string",
    "The arguments of 'whisk' must be a JSON object, got a boolean",
    "Invalid JSON in the arguments of 'whisk': {not json",
  ]);
  assert.deepEqual(runs, [], "no job ran with the defaults");

  // an object, and no arguments at all (absent, "" or null as sent), still run
  const ok = await runToolCalls(
    [{ a: '{"eggs":3}' }, { a: "" }, { a: undefined }, { a: null }].map((c, i) => ({
      name: "whisk",
      arguments: parseArguments(c.a),
      id: `k${i}`,
    })),
    { registry },
  );
  const contents = ok.filter((_, i) => i % 2 === 1).map((m) => JSON.parse(String(m.content)));
  assert.deepEqual(contents.map((c) => c.content), [
    "Whisked 3",
    "Whisked 2",
    "Whisked 2",
    "Whisked 2",
  ]);
});
