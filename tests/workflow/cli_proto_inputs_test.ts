/**
 * `workflow task` with inputs named like Object.prototype members, own and a
 * dependency's (R112-5 follow-up): not given they are null or their default,
 * never Object.prototype's member; given they are values (`__proto__` too);
 * the help lists them, the `.info` records them, and the jobs are named as
 * the same workflow's under plain input names.
 */
import assert from "node:assert/strict";
import { runMain, tempDir } from "../support/cli.ts";
import {
  PROTO_ARGS,
  PROTO_GIVEN,
  PROTO_NAMES,
  PROTO_NONE,
  protoWorkflowText,
} from "../support/proto_workflow.ts";
import { env, readInfo, userWorkflow } from "./cli_support.ts";

async function task(dir: string, args: string[]) {
  const r = await runMain(["workflow", "task", "Proto", "t", "--json", ...args], {
    cwd: dir,
    env: env(dir),
  });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { path: string; shortPath: string; result: unknown };
}

Deno.test("workflow task: inputs called toString, constructor, valueOf, __proto__ run given or not", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Proto", protoWorkflowText("Proto"));
  // before: Input "toString" of Proto/t expects string, got function toString() { [native code] }
  const none = await task(d.path, []);
  assert.deepEqual(none.result, PROTO_NONE);
  assert.equal(none.shortPath, "Proto/t/Default.json");
  const given = await task(d.path, PROTO_ARGS);
  assert.deepEqual(given.result, PROTO_GIVEN);
  const info = readInfo(given.path)!;
  assert.deepEqual(info.input_names, ["toString", "__proto__", "hasOwnProperty"]);
  assert.deepEqual(info.inputs, ["a", { polluted: true }, 2]);
  assert.deepEqual(info.non_default_inputs, PROTO_NAMES);
  assert.deepEqual(info.provided_inputs, {
    toString: "a",
    ["__proto__"]: '{"polluted":true}',
    hasOwnProperty: "2",
    constructor: "c",
    valueOf: "w",
  });
  const depPath = (info.dependencies as string[])[0]!;
  const depInfo = readInfo(depPath)!;
  assert.deepEqual(depInfo.input_names, ["toString", "constructor", "valueOf", "__proto__"]);
  assert.deepEqual(depInfo.inputs, ["a", "c", "w", { polluted: true }]);

  // the same workflow with plain input names names its jobs the same: values are digested
  await using p = await tempDir();
  userWorkflow(p.path, "Proto", protoWorkflowText("Proto", (n) => `plain_${n.replace(/_/g, "")}`));
  const plainArgs = PROTO_ARGS.map((a) =>
    a.startsWith("--") ? `--plain_${a.slice(2).replace(/_/g, "")}` : a
  );
  const twin = await task(p.path, plainArgs);
  assert.equal(twin.shortPath, given.shortPath);
  assert.match(given.shortPath, /^Proto\/t\/Default_[0-9a-f]{32}\.json$/);
  const twinDep = (readInfo(twin.path)!.dependencies as string[])[0]!;
  assert.equal(twinDep.slice(p.path.length), depPath.slice(d.path.length));
  assert.match(depPath, /\/Proto\/dep\/Default_[0-9a-f]{32}\.json$/);
});

Deno.test("workflow task --help lists inputs called toString, __proto__, constructor", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Proto", protoWorkflowText("Proto"));
  const r = await runMain(["workflow", "task", "Proto", "t", "--help"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(r.code, 0, r.stderr);
  const inputs = r.stdout.split("\nInputs:\n")[1]!.split("\n\n")[0]!.split("\n").map((l) =>
    l.trim().replace(/\s+/g, " ")
  );
  assert.deepEqual(inputs, [
    "--toString <string>",
    "--__proto__ <json>",
    "--hasOwnProperty <integer> (default: 1)",
    "--constructor <string> [dependency]",
    "--valueOf <string> (default: v) [dependency]",
  ]);
});
