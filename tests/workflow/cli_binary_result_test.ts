/** `workflow task` prints a binary result's bytes unchanged (R75-3), through a real process. */
import assert from "node:assert/strict";
import { spawnScout, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";

const BYTES = [0xff, 0x00, 0x41, 0x0a];

async function stdoutBytes(args: string[], home: string): Promise<Uint8Array> {
  const out = await spawnScout(args, { cwd: home, env: env(home) }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

Deno.test("workflow task: a binary result is written to stdout byte for byte, run or cached (R75-3)", async () => {
  await using d = await tempDir();
  userWorkflow(
    d.path,
    "Bin",
    `export default (api) => api.workflow("Bin", { tasks: {
      raw: { type: "binary", run: () => new Uint8Array([${BYTES.join(",")}]) },
    } });\n`,
  );
  const args = ["workflow", "task", "Bin", "raw"];
  assert.deepEqual([...await stdoutBytes(args, d.path)], BYTES); // computed
  assert.deepEqual([...await stdoutBytes(args, d.path)], BYTES); // loaded from the store
});
