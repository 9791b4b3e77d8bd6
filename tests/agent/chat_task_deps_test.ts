/**
 * A chat task's dependencies (R165-1): `api.chatTask(name, body, {deps})`
 * declares them as an ordinary task's `deps` does (Ruby's `dep` before
 * `chat_task`). Run through a real `scout-ai` from source: the dependency
 * job runs, the body loads its result, and the chat job's `.info` lists it.
 * An option chat tasks do not know is refused, naming it, where it was
 * dropped without a word.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatTask } from "../../src/agent/chat_task.ts";
import { workflow } from "../../src/workflow/define.ts";
import { homeIn, runScout, tempDir } from "../support/cli.ts";

const PIPE = `export default (api) => api.workflow("Pipe2", {
  tasks: {
    words: { type: "string", run: () => "three little words" },
    summary: { type: "string", deps: ["words"], run: async (_i, job) => \`sum of \${await job.load("words")}\` },
    ...api.chatTask("review", async ({ job }) => \`x \${await job.load("summary")}\`, {
      description: "R",
      deps: ["summary"],
    }),
  },
});`;

function pipeIn(dir: string, text = PIPE): void {
  const d = join(dir, "workflows", "Pipe2");
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "workflow.ts"), text);
  writeFileSync(join(dir, "q.chat"), "user:\n\nreview it\n");
}

Deno.test("chatTask(…, {deps}): the task carries its dependencies as an ordinary task does", () => {
  const wf = workflow("Pipe2Lib", {
    tasks: {
      a: { type: "string", run: () => "a" },
      ...chatTask("review", () => "ok", { deps: ["a", { task: "a", jobname: "other" }] }),
    },
  });
  assert.deepEqual(wf.tasks.review!.deps, [{ task: "a" }, { task: "a", jobname: "other" }]);
});

Deno.test("chatTask refuses an option it does not know, naming it", () => {
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => chatTask("review", () => "ok", { dep: ["a"] } as any),
    /Chat task "review" has an unknown option "dep" \(did you mean "deps"\?\): its options are description, returns, deps/,
  );
});

Deno.test("a chat task with deps runs them, loads their result and lists them in .info", async () => {
  await using d = await tempDir();
  pipeIn(d.path);
  const env = homeIn(d.path);
  const run = await runScout(
    ["workflow", "task", "Pipe2", "review", "--chat", "q.chat", "--json"],
    { cwd: d.path, env },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /x sum of three little words/);
  const info = await runScout([
    "workflow",
    "task",
    "Pipe2",
    "review",
    "--chat",
    "q.chat",
    "--print-path",
  ], {
    cwd: d.path,
    env,
  });
  assert.equal(info.code, 0, info.stderr);
  const path = info.stdout.trim();
  const json = JSON.parse(readFileSync(`${path}.info`, "utf8"));
  assert.equal(json.status, "done");
  assert.equal(json.type, "chat");
  assert.deepEqual(json.input_names, ["chat"]);
  assert.equal(json.dependencies.length, 1);
  assert.match(json.dependencies[0], /\/var\/jobs\/Pipe2\/summary\/Default$/);
  assert.equal(readFileSync(json.dependencies[0], "utf8"), "sum of three little words");
});

Deno.test("a chat task's unknown option fails the load naming the option, the file and its line", async () => {
  await using d = await tempDir();
  pipeIn(d.path, PIPE.replace('deps: ["summary"]', 'dep: ["summary"]'));
  const run = await runScout(["workflow", "task", "Pipe2", "review", "--chat", "q.chat"], {
    cwd: d.path,
    env: homeIn(d.path),
  });
  assert.equal(run.code, 1, run.stdout);
  assert.match(run.stderr, /unknown option "dep"/);
  assert.match(run.stderr, /workflow\.ts:\d+\)/);
});
