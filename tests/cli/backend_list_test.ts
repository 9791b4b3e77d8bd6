/**
 * The backend names a user reads — `-b`'s help of `llm ask` and `agent ask`,
 * the README's endpoint-file comment — are the registry's built-ins, so a new
 * built-in backend cannot be left out of them (R165-3).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { backendNames } from "../../src/llm/registry.ts";
import { ROOT, runScout, tempDir } from "../support/cli.ts";

const names = backendNames();

for (const command of [["llm", "ask"], ["agent", "ask"]]) {
  Deno.test(`${command.join(" ")} --help lists every built-in backend under -b`, async () => {
    await using home = await tempDir();
    const r = await runScout([...command, "--help"], {
      env: { HOME: home.path, SCOUT_HOME: join(home.path, "scout") },
    });
    assert.equal(r.code, 0, r.stderr);
    const listed = r.stdout.replace(/\s+/g, " ").match(/-b, --backend <name> backend \(([^)]*)\)/);
    assert.deepEqual(listed?.[1]?.split(", "), names);
  });
}

Deno.test("the README's endpoint-file comment lists every built-in backend", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const line = readme.split("\n").find((l) => l.startsWith("backend: responses # "));
  assert.ok(line !== undefined, "no endpoint example in the README");
  const listed = line.replace(/^.*# /, "").split(" | ");
  assert.deepEqual([...listed].sort(), [...names].sort());
});
