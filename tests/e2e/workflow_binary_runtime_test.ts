/**
 * What a workflow author meets when the binary runs their code under Bun
 * rather than Deno: a task body using `Deno.*` works from source and fails
 * in the binary with a hint to use `node:` modules (R126-2); a workflow
 * refused while it is defined by the README's arrow `(api) => api.workflow(…)`
 * names the call's line in the binary as from source, though Bun's
 * JavaScriptCore drops the arrow's frame on that tail call (R126-4).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildBinary, homeIn, runBinary, runScout, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

Deno.test("binary: a task using Deno.* fails with a hint to use node: modules", async () => {
  await buildBinary();
  await using d = await tempDir();
  put(
    d.path,
    "workflows/D/workflow.ts",
    'export default (api) =>\n  api.workflow("D", {\n' +
      '    tasks: { t: { type: "string", inputs: {}, run: () => Deno.env.get("HOME") } },\n  });\n',
  );
  const args = ["workflow", "task", "D", "t"];
  const src = await runScout(args, { cwd: d.path, env: { ...homeIn(d.path), HOME: d.path } });
  assert.equal(src.stdout, `${d.path}\n`, src.stderr);
  const env = { SCOUT_HOME: join(d.path, "bin-home"), HOME: d.path };
  const bin = await runBinary(args, { cwd: d.path, env });
  assert.equal(bin.code, 1);
  assert.equal(
    bin.stderr,
    'scout-ai: Job "D/t/Default" failed: Deno is not defined — the binary runs workflow and ' +
      "agent code under Bun: use node: modules (node:fs, node:process…) and web APIs, not " +
      `Deno.* (${join(d.path, "bin-home", "var", "jobs", "D", "t", "Default")})\n`,
  );
});

Deno.test("binary: a workflow refused as it is defined names its api.workflow line, as from source", async () => {
  await buildBinary();
  await using d = await tempDir();
  const file = put(
    d.path,
    "workflows/Typ/workflow.ts",
    'import type { WorkflowApi } from "@scout-ai/scout-ai";\n\n' +
      "export default (api: WorkflowApi) =>\n" +
      '  api.workflow("Typ", { tasks: { a: { type: "intger", run: () => 1 } } });\n',
  );
  const args = ["workflow", "task", "Typ", "a"];
  const src = await runScout(args, { cwd: d.path, env: homeIn(d.path) });
  const bin = await runBinary(args, { cwd: d.path, env: homeIn(d.path) });
  const expected = `scout-ai: Workflow file "${file}" failed while defining its workflow: ` +
    `Unknown type "intger" of task "Typ/a" (${file}:4)\n`;
  assert.equal(src.stderr, expected);
  assert.equal(bin.stderr, expected);
  assert.equal(bin.code, 1);
});
