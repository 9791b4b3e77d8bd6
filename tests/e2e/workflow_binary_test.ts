/**
 * The built binary loads a user's workflow.ts at run time (default export
 * receiving the API, `import type` only) and prints exactly what
 * `deno task scout` prints.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, ROOT, runBinary, runScout, tempDir } from "../support/cli.ts";

const USER_WORKFLOW = `import type { WorkflowApi } from "scout-ai/does-not-need-to-exist";

export default (api: WorkflowApi) =>
  api.workflow("Greeter", {
    tasks: {
      greet: {
        type: "string",
        inputs: {
          name: api.input.string({ required: true, description: "Who" }),
          times: api.input.integer({ default: 1, schema: api.z.number().max(5) }),
        },
        run: async ({ name, times }, job) => {
          await job.log("greeting", "Greeting " + name);
          return Array.from({ length: times as number }, () => "Hello " + name).join(" ");
        },
      },
      shout: {
        type: "json",
        deps: ["greet"],
        run: async (_i, job) => ({ loud: String(await job.load("greet")).toUpperCase(), at: job.shortPath }),
      },
    },
  });
`;

Deno.test("binary: loads a user workflow.ts and matches deno task scout byte for byte", async () => {
  await buildBinary();
  await using d = await tempDir();
  mkdirSync(join(d.path, "workflows", "Greeter"), { recursive: true });
  writeFileSync(join(d.path, "workflows", "Greeter", "workflow.ts"), USER_WORKFLOW);
  const cases = [
    ["workflow", "task", "Greeter", "shout", "--name", "Ann", "--times", "2"],
    ["workflow", "task", "Greeter", "shout", "--name", "Ann", "--times", "2", "--json"],
    ["workflow", "task", "Greeter", "greet", "--help"],
    ["workflow", "task", "Greeter", "greet", "--name", "Bo", "--times", "9"],
    ["workflow", "task", join(ROOT, "fixtures/workflows/Baking"), "cake", "--eggs", "4"],
    ["workflow", "list", "Greeter"],
  ];
  for (const args of cases) {
    const homeA = join(d.path, "a"), homeB = join(d.path, "b");
    const bin = await runBinary(args, { cwd: d.path, env: { SCOUT_HOME: homeA } });
    const src = await runScout(args, { cwd: d.path, env: { SCOUT_HOME: homeB } });
    const norm = (s: string) => s.replaceAll(homeA, "<home>").replaceAll(homeB, "<home>");
    assert.equal(bin.code, src.code, `${args.join(" ")}\n${bin.stderr}\n${src.stderr}`);
    assert.equal(norm(bin.stdout), norm(src.stdout), args.join(" "));
    assert.equal(norm(bin.stderr), norm(src.stderr), args.join(" "));
  }
  const ok = await runBinary(cases[1]!, { cwd: d.path, env: { SCOUT_HOME: join(d.path, "a") } });
  const res = JSON.parse(ok.stdout);
  assert.match(res.shortPath, /^Greeter\/shout\/Default_[0-9a-f]{32}\.json$/);
  assert.deepEqual(res.result, { loud: "HELLO ANN HELLO ANN", at: res.shortPath });
  const bad = await runBinary(cases[3]!, { cwd: d.path, env: { SCOUT_HOME: join(d.path, "a") } });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /Input "times" of Greeter\/greet is invalid/);
  const info = await runBinary(
    ["workflow", "info", JSON.parse(ok.stdout).path, "--json"],
    { cwd: d.path, env: { SCOUT_HOME: join(d.path, "a") } },
  );
  const i = JSON.parse(info.stdout);
  assert.equal(i.status, "done");
  assert.equal(i.dependencies[0].status, "done");
});
