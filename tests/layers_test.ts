/**
 * The house rules of `src/`'s imports (DESIGN.md §1), on the module graph
 * Deno resolves: no import circle between files (type-only and dynamic
 * imports count), and no folder importing one above it. The checks
 * themselves are tried first on small graphs that break each rule.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  importCircles,
  layerBreaches,
  type ModuleGraph,
  readModuleGraph,
} from "./support/module_graph.ts";

const ROOT = join(import.meta.dirname!, "..");

function graph(edges: Record<string, string[]>): ModuleGraph {
  return new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));
}

Deno.test("importCircles finds a circle through type-only links and a file importing itself", () => {
  const g = graph({
    "workflow/a.ts": ["workflow/b.ts"],
    "workflow/b.ts": ["workflow/c.ts", "util/x.ts"],
    "workflow/c.ts": ["workflow/a.ts"],
    "util/x.ts": [],
    "util/self.ts": ["util/self.ts"],
  });
  assert.deepEqual(importCircles(g), [["workflow/a.ts", "workflow/b.ts", "workflow/c.ts"], [
    "util/self.ts",
  ]]);
  assert.deepEqual(importCircles(graph({ "a.ts": ["b.ts"], "b.ts": [] })), []);
});

Deno.test("layerBreaches names an import from a lower folder to a higher one", () => {
  const g = graph({
    "llm/ask.ts": ["agent/agent.ts", "chat/parse.ts", "llm/loop.ts"],
    "chat/parse.ts": ["errors.ts"],
    "cli/main.ts": ["agent/agent.ts", "provenance/report.ts"],
    "provenance/report.ts": ["tools/registry.ts"],
  });
  assert.deepEqual(layerBreaches(g), [
    "llm/ask.ts → agent/agent.ts",
    "provenance/report.ts → tools/registry.ts",
  ]);
});

Deno.test("src/ has no import circle and no import against the layers", async () => {
  const g = await readModuleGraph(Deno.execPath(), join(ROOT, "src"), join(ROOT, "deno.json"));
  let files = 0;
  for await (const _ of walk(join(ROOT, "src"))) files++;
  assert.deepEqual(g.size, files, "every file under src/ is in the graph");
  assert.deepEqual(importCircles(g), []);
  assert.deepEqual(layerBreaches(g), []);
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* walk(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}
