/**
 * The binary (Bun) builds and runs a chain of 5,000 dependencies, each body
 * loading the job below (R89-4 lifted): the build recursed and ran Bun's
 * stack out near a depth of 4,000 ("nest too deep to build"); it now builds
 * on an explicit work stack.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, homeIn, runBinary, tempDir } from "../support/cli.ts";

const SCALE = `export default (api) => api.workflow("Scale", { tasks: { chain: { type: "integer",
  inputs: { depth: api.input.integer({ default: 0 }) },
  deps: [{ task: "chain", resolve: (_id, o) => o.depth > 0 ? [{ depth: o.depth - 1 }] : [] }],
  run: async ({ depth }, job) => depth === 0 ? 0 : (await job.load("chain")) + 1 } } });
`;

Deno.test("binary: a workflow with a chain of 5,000 dependencies builds and runs", async () => {
  await buildBinary();
  await using d = await tempDir();
  mkdirSync(join(d.path, "workflows", "Scale"), { recursive: true });
  writeFileSync(join(d.path, "workflows", "Scale", "workflow.ts"), SCALE);
  const args = ["workflow", "task", "Scale", "chain", "--depth", "5000"];
  const r = await runBinary(args, { cwd: d.path, env: homeIn(d.path) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "5000\n");
  const info = await runBinary(
    ["workflow", "info", "Scale/chain/Default", "--json"],
    { cwd: d.path, env: homeIn(d.path) },
  );
  assert.equal(JSON.parse(info.stdout).status, "done", info.stderr);
});
