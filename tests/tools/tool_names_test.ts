/**
 * Tool names a provider would refuse (R96-6) from the other sources: a
 * workflow task named `make.cake` is offered as `make_cake` and still runs its
 * task (MCP servers: `mcp_client_test.ts`); aliases are unique and at most 64.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { providerToolAliases } from "../../src/tools/names.ts";
import { workflowToolResolver } from "../../src/tools/workflow.ts";
import { workflow } from "../../src/workflow/define.ts";
import { tempDir } from "../support/cli.ts";

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

Deno.test("tools (R96-6): a workflow task whose name a provider refuses is offered under an alias and runs its task", async () => {
  await using d = await tempDir();
  workflow("DottyKitchen", {
    jobsDir: join(d.path, "jobs"),
    tasks: { "make.cake": { type: "string", run: () => "baked" } },
  });
  const warnings: string[] = [];
  const { registry } = await assembleTools(
    [{ role: "tool", content: "DottyKitchen" }, { role: "user", content: "hi" }],
    new Map(),
    workflowToolResolver({ cwd: d.path, env: { SCOUT_HOME: d.path } }),
    { warn: (m) => warnings.push(m) },
  );
  assert.deepEqual([...registry.keys()], ["make_cake"]);
  assert.deepEqual(warnings, [
    `Tool "make.cake" of tool: DottyKitchen is offered as "make_cake" (a provider function name has only letters, digits, _ and -, at most 64)`,
  ]);
  const out = await runToolCalls([{ name: "make_cake", arguments: {}, id: "c1" }], { registry });
  assert.equal(JSON.parse(String(out[1]!.content)).content, "baked");
});

Deno.test("tools (R96-6): aliases are valid, unique among the source's names, the valid names kept", () => {
  const long = "a".repeat(70);
  const names = ["ok", "a.b", "a_b", "a/b", long, `${long}.x`, "", "ünï"];
  const aliases = providerToolAliases(names);
  assert.deepEqual([...aliases.keys()], ["a.b", "a/b", long, `${long}.x`, "", "ünï"]);
  const all = names.map((n) => aliases.get(n) ?? n);
  for (const a of all) assert.match(a, SAFE);
  assert.equal(new Set(all).size, all.length, all.join(" "));
  assert.equal(aliases.get("a.b")!.length, "a_b".length + 9, "a_b is taken: a hash suffix");
  assert.equal(aliases.get("ünï"), "_n_");
});
