import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileText } from "../../src/chat/compile.ts";
import { emptyConfig } from "../../src/config/store.ts";
import { jobRoleResolver } from "../../src/workflow/chat_roles.ts";
import { isScoutError } from "../../src/errors.ts";
import { runMain, tempDir } from "../support/cli.ts";

const PIPE = `export default (api) => api.workflow("Pipe", {
  tasks: {
    count: { type: "integer", inputs: { n: api.input.integer({ default: 1 }) }, run: ({ n }) => n * 10 },
    words: { type: "array", inputs: { text: api.input.string({ default: "a b" }) }, run: ({ text }) => text.split(" ") },
    ask: {
      type: "chat",
      inputs: { chat: api.input.text() },
      run: (_i, job) => [
        { role: "meta", content: "job=" + job.shortPath },
        { role: "assistant", content: "first answer" },
      ],
    },
    plan: {
      type: "chat",
      deps: [{ task: "ask", inputs: { chat: "user: plan it" } }],
      run: (_i, job) => [{ role: "meta", content: "job=" + job.shortPath }, { role: "assistant", content: "the plan" }],
    },
    broken: { type: "string", run: () => { throw api.fail("broken on purpose"); } },
  },
});`;

function setup(dir: string) {
  mkdirSync(join(dir, "workflows", "Pipe"), { recursive: true });
  writeFileSync(join(dir, "workflows", "Pipe", "workflow.ts"), PIPE);
  const env = { SCOUT_HOME: join(dir, "home"), HOME: dir, NO_COLOR: "1" };
  return {
    env,
    opts: { cwd: dir, env, config: emptyConfig(), jobs: jobRoleResolver({ cwd: dir, env }) },
  };
}

Deno.test("task / inline_task / exec_task / job / inline_job compile through the job store", async () => {
  await using d = await tempDir();
  const { opts } = await setup(d.path);
  const out = await compileText(
    'user: go\n\ntask: Pipe count n=3\n\ninline_task: Pipe words text="x y"\n\nexec_task: Pipe words text="p q"\n',
    opts,
  );
  const roles = out.map((m) => m.role);
  assert.deepEqual(roles, ["user", "function_call", "function_call_output", "user", "user"]);
  const call = JSON.parse(out[1]!.content as string);
  assert.equal(call.name, "count");
  assert.deepEqual(call.arguments, { n: 3 });
  assert.match(call.id, /^Pipe-count-[0-9a-f]{19}_[0-9a-f]{9}$/);
  assert.deepEqual(JSON.parse(out[2]!.content as string), { id: call.id, content: "30" });
  assert.match(
    out[3]!.content as string,
    /<file name=".*Pipe\/words\/Default_[0-9a-f]{32}">\nx\ny\n<\/file>/,
  );
  assert.equal(out[4]!.content, '["p","q"]');
});

Deno.test("step: answer of the meta job or of its dependency by task name", async () => {
  await using d = await tempDir();
  const { opts } = await setup(d.path);
  const first = await compileText("task: Pipe plan\n", opts);
  const output = JSON.parse(
    first.find((m) => m.role === "function_call_output")!.content as string,
  );
  assert.match(output.content, /meta: job=Pipe\/plan\/Default\.chat/);
  const out = await compileText(
    "meta: job=Pipe/plan/Default.chat\n\nstep: ask\n\nstep: plan\n",
    opts,
  );
  assert.deepEqual(out.filter((m) => m.role === "assistant").map((m) => m.content), [
    "first answer",
    "the plan",
  ]);
  await assert.rejects(
    () => compileText("meta: job=Pipe/plan/Default.chat\n\nstep: nope\n", opts),
    (e) => isScoutError(e, "job_not_found") && /no dependency with task "nope"/.test(e.message),
  );
});

Deno.test("failed task jobs: job_failed by default, {exception, stack} with SCOUT_CHAT_JOB_EXCEPTION", async () => {
  await using d = await tempDir();
  const { opts, env } = await setup(d.path);
  await assert.rejects(
    () => compileText("task: Pipe broken\n", opts),
    (e) => isScoutError(e, "job_failed") && /broken on purpose/.test(e.message),
  );
  const out = await compileText("task: Pipe broken\n", {
    ...opts,
    env: { ...env, SCOUT_CHAT_JOB_EXCEPTION: "true" },
  });
  const content = JSON.parse(
    JSON.parse(out.find((m) => m.role === "function_call_output")!.content as string).content,
  );
  assert.equal(content.exception, "broken on purpose");
  assert.match(content.stack, /fail|run/);
  await assert.rejects(
    () => compileText("job: Pipe/count/Nope\n", opts),
    (e) => isScoutError(e, "job_not_found"),
  );
  await assert.rejects(
    () => compileText("task: Nopipe count\n", opts),
    (e) => isScoutError(e, "workflow_not_found"),
  );
});

Deno.test("chat compile CLI resolves job roles with the workflow engine", async () => {
  await using d = await tempDir();
  const { env } = await setup(d.path);
  writeFileSync(join(d.path, "c.chat"), "user: hi\n\ntask: Pipe count n=2\n");
  const r = await runMain(["chat", "compile", "c.chat", "--json"], { cwd: d.path, env });
  assert.equal(r.code, 0, r.stderr);
  const msgs = JSON.parse(r.stdout);
  assert.equal(JSON.parse(msgs.at(-1).content).content, "20");
});

Deno.test("an explicit jobs directory holds the jobs of task lines and resolves job lines", async () => {
  await using d = await tempDir();
  const { opts, env } = await setup(d.path);
  const jobsDir = join(d.path, "explicit-jobs");
  const jobs = jobRoleResolver({ cwd: d.path, env, jobsDir });
  const out = await compileText("task: Pipe count n=4\n", { ...opts, jobs });
  assert.equal(JSON.parse(out.at(-1)!.content as string).content, "40");
  const made = join(jobsDir, "Pipe", "count");
  assert.equal(readdirSync(made).filter((n) => !n.endsWith(".info")).length, 1);
  assert.equal(existsSync(join(d.path, "home", "var", "jobs", "Pipe")), false);
  const name = readdirSync(made).find((n) => !n.endsWith(".info"))!;
  const again = await compileText(`job: Pipe/count/${name}\n`, { ...opts, jobs });
  assert.equal(JSON.parse(again.at(-1)!.content as string).content, "40");
});
