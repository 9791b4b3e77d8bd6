/**
 * A workflow.ts importing an npm package, run by the built binary (R126-1):
 * a package installed in a `node_modules` beside the file or above it loads,
 * as under `bun`; an import the binary cannot load (`npm:`, the library's own
 * package as a value) fails naming the import's file and line and what to do.
 */
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, homeIn, ROOT, runBinary, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

const task = (name: string, body: string) =>
  `export default (api) =>\n  api.workflow("${name}", {\n` +
  `    tasks: { t: { type: "string", inputs: {}, run: () => ${body} } },\n  });\n`;

Deno.test("binary: a workflow.ts imports packages from node_modules beside it and above it", async () => {
  await buildBinary();
  await using d = await tempDir();
  // a package with a package.json naming its entry (`exports`), beside the workflow
  put(
    d.path,
    "workflows/Greet/node_modules/greet/package.json",
    '{"name":"greet","type":"module","exports":{".":"./lib/main.js"}}',
  );
  put(
    d.path,
    "workflows/Greet/node_modules/greet/lib/main.js",
    'export const hi = (n) => "Hi " + n;\n',
  );
  put(
    d.path,
    "workflows/Greet/workflow.ts",
    `import { hi } from "greet";\n${task("Greet", 'hi("Ann")')}`,
  );
  // the real `yaml` package, installed in the working directory above the workflow
  cpSync(join(ROOT, "node_modules", "yaml"), join(d.path, "node_modules", "yaml"), {
    recursive: true,
    dereference: true,
  });
  put(
    d.path,
    "workflows/Yml/workflow.ts",
    `import { parse } from "yaml";\n${task("Yml", 'JSON.stringify(parse("a: [1, 2]"))')}`,
  );
  const env = homeIn(d.path);
  const greet = await runBinary(["workflow", "task", "Greet", "t"], { cwd: d.path, env });
  assert.equal(greet.stderr, "");
  assert.equal(greet.stdout, "Hi Ann\n");
  const yml = await runBinary(["workflow", "task", "Yml", "t"], { cwd: d.path, env });
  assert.equal(yml.stderr, "");
  assert.equal(yml.stdout, '{"a":[1,2]}\n');
});

Deno.test("binary: an npm: import or a value import of the library names its line and what to do", async () => {
  await buildBinary();
  await using d = await tempDir();
  const npm = put(
    d.path,
    "workflows/Npm/workflow.ts",
    `// parses YAML\n\nimport { parse } from "npm:yaml@2.9.1";\n${task("Npm", 'parse("a: 1")')}`,
  );
  const lib = put(
    d.path,
    "workflows/Lib/workflow.ts",
    'import type { WorkflowApi } from "@scout-ai/scout-ai";\n' +
      'import { workflow } from "@scout-ai/scout-ai";\n' +
      'export default workflow("Lib", { tasks: {} });\n',
  );
  const env = homeIn(d.path);
  const r1 = await runBinary(["workflow", "task", "Npm", "t"], { cwd: d.path, env });
  assert.equal(r1.code, 1);
  assert.equal(
    r1.stderr,
    `scout-ai: Cannot load workflow file "${npm}": Cannot find package "npm:yaml@2.9.1": ` +
      "the binary (Bun) loads no npm: or jsr: specifier: install the package beside the file " +
      `(npm install yaml) and import "yaml", or run from source with deno (${npm}:3)\n`,
  );
  const r2 = await runBinary(["workflow", "task", "Lib", "t"], { cwd: d.path, env });
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /Cannot find package "@scout-ai\/scout-ai": .*`import type`/);
  assert.ok(r2.stderr.endsWith(`(${lib}:2)\n`), r2.stderr);
});
