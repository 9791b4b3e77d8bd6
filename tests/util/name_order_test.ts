import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareNames } from "../../src/util/name_order.ts";
import { homeIn, runScout, tempDir } from "../support/cli.ts";

const NAMES = ["Zeta", "Äpfel", "Alpha"];
const ENGLISH = ["Alpha", "Äpfel", "Zeta"];

Deno.test("compareNames sorts in the English collation whatever the locale", () => {
  assert.deepEqual([...NAMES].sort(compareNames), ENGLISH);
});

Deno.test("workflow list prints one order under any LANG (R102-13)", async () => {
  await using dir = await tempDir();
  const workflows = join(dir.path, "workflows");
  const home = join(dir.path, "home");
  for (const name of NAMES) {
    mkdirSync(join(workflows, name), { recursive: true });
    writeFileSync(
      join(workflows, name, "workflow.ts"),
      `export default (api) => api.workflow(${JSON.stringify(name)}, {\n` +
        `  tasks: { hi: { type: "string", run: () => "hi" } },\n});\n`,
    );
  }
  // Deno's default collation follows LANG (Swedish sorts Ä after Z); Bun's is en-US
  for (const LANG of ["sv_SE.UTF-8", "C.UTF-8"]) {
    const env = { ...homeIn(home), LANG, LC_ALL: LANG };
    const wf = await runScout(["workflow", "list", workflows], { env, cwd: dir.path });
    assert.equal(wf.code, 0, wf.stderr);
    assert.deepEqual(wf.stdout.trim().split("\n").map((l) => l.split(/\s/)[0]), ENGLISH, LANG);
  }
});
