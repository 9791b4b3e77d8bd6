/**
 * `staticImports` and `missingImport`: a user's module importing a local
 * file that is not there is found before it is imported, so the binary (Bun
 * drops unused imports) fails as the source does (R81-6).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { staticImports } from "../../src/util/static_imports.ts";
import { importChecked, missingImport } from "../../src/util/missing_import.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("staticImports: declarations at line starts, with the line of the specifier", () => {
  const source = [
    'import a from "./a.ts";', // 1
    "import {", // 2
    "  b,", // 3
    '} from "./b.ts";', // 4
    'import "./side.ts";', // 5
    'export * from "./c.ts";', // 6
    'export { d as e } from "../d.ts";', // 7
    "import * as ns from 'npm:zod';", // 8
    'import type { T } from "./types.ts";', // 9
    'export type { U } from "./types.ts";', // 10
    'const x = await import("./dynamic.ts");', // 11
    'export const s = "./not-an-import.ts";', // 12
    'import f, { g } from "./fg.ts";', // 13
  ].join("\n");
  assert.deepEqual(staticImports(source), [
    { specifier: "./a.ts", line: 1 },
    { specifier: "./b.ts", line: 4 },
    { specifier: "./side.ts", line: 5 },
    { specifier: "./c.ts", line: 6 },
    { specifier: "../d.ts", line: 7 },
    { specifier: "npm:zod", line: 8 },
    { specifier: "./fg.ts", line: 13 },
  ]);
});

Deno.test("staticImports: nothing from comments, strings or template literals", () => {
  const source = [
    "/*",
    'import a from "./gone.ts";',
    "*/",
    '// import b from "./gone.ts";',
    "const t = `",
    'import c from "./gone.ts";',
    "${`nested ${1}`}",
    'import d from "./gone.ts";',
    "`;",
    'const u = "// not a comment"; import e from "./mid-line.ts";',
    'import f from "./real.ts"; // "quote',
  ].join("\n");
  assert.deepEqual(staticImports(source), [{ specifier: "./real.ts", line: 11 }]);
});

Deno.test("missingImport: the first missing local module, through the local modules it reaches", async () => {
  await using d = await tempDir();
  const wf = join(d.path, "workflow.ts");
  mkdirSync(join(d.path, "lib"));
  writeFileSync(join(d.path, "lib", "index.ts"), "export const x = 1;\n");
  writeFileSync(
    join(d.path, "helper.ts"),
    '\nimport { y } from "./lib/gone.ts";\nexport const h = y;\n',
  );
  writeFileSync(
    wf,
    'import { x } from "./lib";\nimport h from "./helper.js";\nimport z from "npm:zod";\n',
  );
  assert.deepEqual(missingImport(wf), {
    specifier: "./lib/gone.ts",
    path: join(d.path, "lib", "gone.ts"),
    file: join(d.path, "helper.ts"),
    line: 2,
  });
  writeFileSync(join(d.path, "lib", "gone.ts"), "export const y = 2;\n");
  assert.equal(missingImport(wf), null);
});

Deno.test("importChecked: a missing import rejects with the place importFailure reads", async () => {
  await using d = await tempDir();
  const wf = join(d.path, "workflow.ts");
  writeFileSync(wf, 'import x from "./nope.ts";\nexport default 1;\n');
  await assert.rejects(importChecked(wf), (e: Error & { position?: unknown }) => {
    assert.equal(e.message, `Module not found "${join(d.path, "nope.ts")}"`);
    assert.deepEqual(e.position, { file: wf, line: 1 });
    return true;
  });
  writeFileSync(wf, "export default 1;\n");
  assert.equal((await importChecked(wf)).default, 1);
});
