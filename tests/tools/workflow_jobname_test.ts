/**
 * A job name a model chooses (a workflow tool's `jobname`, or its task's
 * `jobname` input) must not name a store sidecar or hold a backslash
 * (R95-6, [TS-FIX]); the CLI's `--jobname` stays as Ruby's.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { toolRegistry } from "../../src/tools/registry.ts";
import { workflowTools } from "../../src/tools/workflow.ts";
import { input, workflow } from "../../src/workflow/define.ts";
import { createJob } from "../../src/workflow/job.ts";
import { runJob } from "../../src/workflow/run.ts";
import { homeIn, tempDir } from "../support/cli.ts";

function pantry(jobsDir: string) {
  return workflow("Pantry", {
    jobsDir,
    tasks: {
      cake: { type: "string", inputs: {}, run: () => "a cake" },
      named: { type: "string", inputs: { who: input.string({ jobname: true }) }, run: () => "hi" },
    },
  });
}

const BAD = ["Default.info", "Default.files", "x.lock", "x.MD5", ".Default", "a\\..\\etc\\passwd"];

Deno.test("a model's jobname naming a sidecar or holding a backslash is an error output; the user's job is untouched", async () => {
  await using d = await tempDir();
  const wf = pantry(d.path);
  const user = createJob(wf, "cake", { env: homeIn(d.path) });
  await runJob(user);
  const info = Deno.readTextFileSync(user.path + ".info");
  const registry = toolRegistry(workflowTools(wf, undefined, [], { env: homeIn(d.path) }));
  const calls = [
    ...BAD.map((jobname, i) => ({ name: "cake", arguments: { jobname }, id: `c${i}` })),
    ...BAD.map((who, i) => ({ name: "named", arguments: { who }, id: `n${i}` })),
    { name: "cake", arguments: { jobname: "fine.name" }, id: "ok" },
  ];
  const out = await runToolCalls(calls, { registry });
  const outputs = out.filter((_, i) => i % 2).map((m) => JSON.parse(String(m.content)));
  outputs.slice(0, -1).forEach((o, i) => {
    const text = typeof o.content === "string" ? o.content : JSON.stringify(o.content);
    assert.match(text, /Job name .* is not valid: no /, `${calls[i]!.id}: ${text}`);
    assert.ok(!text.includes('"status"'), text);
  });
  assert.equal(outputs.at(-1)!.content, "a cake");
  assert.equal(outputs.at(-1)!.step, "Pantry/cake/fine.name");
  assert.equal(Deno.readTextFileSync(user.path + ".info"), info);
  assert.ok(!existsSync(join(d.path, "Pantry", "cake", "Default.info.info")));
  assert.ok(!existsSync(join(d.path, "Pantry", "named", ".Default")));
});

Deno.test("the CLI's own job names keep Ruby's rule: Default.info is a name (the user names the store's files anyway)", () => {
  const wf = pantry("/nonexistent");
  assert.equal(createJob(wf, "cake", { jobname: "Default.info" }).name, "Default.info");
});
