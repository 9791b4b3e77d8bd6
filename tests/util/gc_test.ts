/**
 * `collectPerText` (src/util/gc.ts) collects only under Bun, the shipped
 * binary's runtime: checked in a Bun child, where an unreachable object's
 * finalizer runs only once a full collection has found it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "../..");
const BUN = join(ROOT, "tools/node_modules/.bin/bun");

/** Runs `script` in Bun (from the project's root) and returns what it printed. */
function bun(script: string): string {
  const r = spawnSync(BUN, ["-e", script], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const PROBE = (calls: string) => `
import { collectPerText } from "./src/util/gc.ts";
let finalized = false;
const registry = new FinalizationRegistry(() => { finalized = true; });
(() => { registry.register({ big: new Array(1000).fill(1) }, "x"); })();
${calls}
await new Promise((r) => setTimeout(r, 50));
console.log(finalized ? "collected" : "not collected");
`;

Deno.test("collectPerText collects once the text since the last collection reaches its step", () => {
  // 900 of 1,000 characters: nothing yet; 200 more: a full collection
  assert.equal(bun(PROBE("collectPerText(900, 1000, 0);")), "not collected");
  assert.equal(
    bun(PROBE("collectPerText(900, 1000, 0); collectPerText(200, 1000, 0);")),
    "collected",
  );
  // below the resident-size floor: counted, not collected
  assert.equal(bun(PROBE("collectPerText(5000, 1000, 1e6);")), "not collected");
});
