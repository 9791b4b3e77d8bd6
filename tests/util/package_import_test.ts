/**
 * `packageImportFailure`: a package import Bun cannot resolve (its
 * `ResolveMessage`: specifier and referrer, no position) becomes a message
 * saying what to do, with the import's line read from the referrer (R126-1).
 * The binary itself is run in tests/e2e/workflow_package_import_test.ts.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageImportFailure } from "../../src/util/package_import.ts";
import { tempDir } from "../support/cli.ts";

const resolveMessage = (specifier: string, referrer: string) => ({
  name: "ResolveMessage",
  code: "ERR_MODULE_NOT_FOUND",
  message: `Cannot find package '${specifier}' imported from ${referrer}`,
  specifier,
  referrer,
  position: null,
});

Deno.test("each kind of package names the package to install and the import's line", async () => {
  await using d = await tempDir();
  const file = join(d.path, "workflow.ts");
  writeFileSync(
    file,
    '/* import { x } from "nope" */\nimport a from "jsr:@std/path@1/posix";\n' +
      'import { b } from "npm:@scope/pkg@^2.1";\nexport { c } from "left-pad";\n' +
      'import * as d from "@scout-ai/scout-ai/cli";\n',
  );
  const at = (s: string) => packageImportFailure(resolveMessage(s, file));
  assert.deepEqual(at("jsr:@std/path@1/posix")?.line, 2);
  assert.match(
    at("jsr:@std/path@1/posix")!.text,
    /\(npm install @std\/path\) and import "@std\/path"/,
  );
  assert.match(at("npm:@scope/pkg@^2.1")!.text, /^Cannot find package "npm:@scope\/pkg@\^2.1": /);
  assert.match(at("npm:@scope/pkg@^2.1")!.text, /npm install @scope\/pkg\)/);
  assert.deepEqual({ ...at("left-pad"), text: "" }, { text: "", file, line: 4 });
  assert.match(at("left-pad")!.text, /no node_modules .* \(npm install left-pad\)$/);
  assert.equal(at("@scout-ai/scout-ai/cli")?.line, 5);
  assert.match(at("@scout-ai/scout-ai/cli")!.text, /`import type`$/);
});

Deno.test("not a package's ResolveMessage, or an unreadable referrer", () => {
  assert.equal(packageImportFailure(resolveMessage("./local.ts", "/w/workflow.ts")), null);
  assert.equal(packageImportFailure(new Error("Cannot find package 'x'")), null);
  assert.equal(packageImportFailure("yaml"), null);
  const gone = packageImportFailure(resolveMessage("yaml", "/no/such/workflow.ts"));
  assert.deepEqual(gone?.file, "/no/such/workflow.ts");
  assert.equal(gone?.line, undefined);
});
