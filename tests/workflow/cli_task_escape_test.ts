/**
 * `workflow task` and inputs named like one of its options (R75-5): given
 * after `--`, marked in the task's help, and an option given where the input
 * may have been meant is warned about, naming the file, task, input and option.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { env, userWorkflow } from "./cli_support.ts";
import { workerArgv } from "../../src/cli/workflow_deploy.ts";
import { bufferIo } from "../support/buffer_io.ts";

const CLASH = `export default (api) => api.workflow("Clash", { tasks: {
  t: { type: "json",
    inputs: { json: api.input.string({ default: "a" }), clean: api.input.string({}),
      deploy: api.input.string({}), debug: api.input.string({}), n: api.input.integer({}) },
    run: (i) => i },
} });
`;

function setup(d: string) {
  const dir = userWorkflow(d, "Clash", CLASH);
  const run = (args: string[]) =>
    runMain(["workflow", "task", "Clash", "t", ...args], { cwd: d, env: env(d) });
  return { file: join(dir, "workflow.ts"), run };
}

Deno.test("workflow task: inputs named like an option are set after -- (R75-5)", async () => {
  await using d = await tempDir();
  const { run } = setup(d.path);
  const set = await run(["--", "--json", "b", "--clean", "c", "--deploy", "d", "--debug", "e"]);
  assert.equal(set.code, 0, set.stderr);
  assert.equal(set.stderr, "");
  assert.deepEqual(JSON.parse(set.stdout), {
    json: "b",
    clean: "c",
    deploy: "d",
    debug: "e",
    n: null,
  });
  // the option before --, the input of the same name after it
  const both = await run(["--json", "--", "--json", "x"]);
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stderr, "");
  assert.equal(JSON.parse(both.stdout).result.json, "x");
  // an input before -- (commander then keeps the --) and one after it
  const mixed = await run(["--n", "3", "--", "--clean", "y"]);
  assert.equal(mixed.code, 0, mixed.stderr);
  assert.deepEqual(JSON.parse(mixed.stdout), {
    json: "a",
    clean: "y",
    deploy: null,
    debug: null,
    n: 3,
  });
  // -- before WORKFLOW TASK: everything after it is an argument
  const first = await runMain(["workflow", "task", "--", "Clash", "t", "--json", "z"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(JSON.parse(first.stdout).json, "z");
  // `--` is no value: a missing value stays a usage error
  const novalue = await run(["--n", "--", "--json", "b"]);
  assert.equal(novalue.code, 2);
  assert.match(novalue.stderr, /Missing value for --n \(integer\)/);
});

Deno.test("workflow task: an option named like an input is warned about, naming file, task, input and option (R75-5)", async () => {
  await using d = await tempDir();
  const { file, run } = setup(d.path);
  const warning = (name: string, type: string) =>
    `scout-ai: warning: --${name} was taken as the option of workflow task, not as input ` +
    `"${name}" of Clash/t (${file}), which has the same name; to set the input, give it after ` +
    `"--": scout-ai workflow task Clash t [options] -- --${name} <${type}>\n`;
  const clean = await run(["--clean", "yes"]);
  assert.equal(clean.code, 2);
  assert.ok(clean.stderr.startsWith(warning("clean", "string")), clean.stderr);
  assert.match(clean.stderr, /Unexpected argument "yes"/);
  const deploy = await run(["--deploy", "x"]);
  assert.equal(deploy.code, 2);
  assert.ok(deploy.stderr.startsWith(warning("deploy", "string")), deploy.stderr);
  // the option still does what it does: JSON output, with the input's default
  const json = await run(["--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stderr, warning("json", "string"));
  assert.equal(JSON.parse(json.stdout).result.json, "a");
  // a global option too
  const debug = await runMain(["--debug", "workflow", "task", "Clash", "t"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(debug.stderr, warning("debug", "string"));
});

Deno.test("workflow task --help: inputs named like an option are marked, with how to give them (R75-5)", async () => {
  await using d = await tempDir();
  const { run } = setup(d.path);
  const h = await run(["--help"]);
  assert.equal(h.code, 0, h.stderr);
  assert.match(h.stdout, /^ {2}--json <string> +\(default: a\) \[after --\]$/m);
  assert.match(h.stdout, /^ {2}--clean <string> +\[after --\]$/m);
  assert.match(h.stdout, /^ {2}--n <integer>$/m);
  assert.match(
    h.stdout,
    /^Inputs marked \[after --\] are named like an option: give them after "--"/m,
  );
  assert.match(h.stdout, /^ {2}scout-ai workflow task Clash t \[options\] -- --json JSON$/m);
  // `--help` after -- is an input's flag, not help
  const after = await run(["--", "--help"]);
  assert.equal(after.code, 2);
  assert.match(after.stderr, /Unknown input --help for Clash\/t/);
});

Deno.test("deploy workers get the inputs after -- behind every option (R75-5)", async () => {
  const io = bufferIo({ env: { SCOUT_AI_SELF: "scout-ai" } });
  const argv = await workerArgv({
    workflow: "Clash",
    task: "t",
    args: ["--n", "3", "--", "--json", "b"],
    jobname: "j",
  }, io);
  assert.deepEqual(argv(["--deploy-job", "/p"]), [
    "scout-ai",
    "workflow",
    "task",
    "Clash",
    "t",
    "--n",
    "3",
    "--jobname",
    "j",
    "--deploy-job",
    "/p",
    "--",
    "--json",
    "b",
  ]);
  // without --, the command line is as before: the worker's options last
  const plain = await workerArgv({ workflow: "Clash", task: "t", args: ["--n", "3"] }, io);
  assert.deepEqual(plain(["--deploy-worker"]), [
    "scout-ai",
    "workflow",
    "task",
    "Clash",
    "t",
    "--n",
    "3",
    "--deploy-worker",
  ]);
});
