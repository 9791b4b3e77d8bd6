/**
 * `workflow task WORKFLOW TASK --help`: the examples it prints give every
 * required input (as a placeholder to replace), and a required input left
 * out is a usage error.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { BAKING, env, userWorkflow } from "./cli_support.ts";

/** The example lines of a help text. */
function exampleLines(help: string): string[] {
  const m = /^Examples\b.*:\n((?: {2}.*\n?)+)/m.exec(help);
  assert.ok(m, help);
  return m[1]!.trimEnd().split("\n").map((l) => l.trim());
}

const FORM = `export default (api) => api.workflow("Form", { tasks: {
  fill: { type: "string", description: "fill in",
    inputs: { note: api.input.string({ description: "optional, no default" }),
      file: api.input.file({ required: true }), max_rows: api.input.integer({ required: true }),
      dry: api.input.boolean({ required: true }) },
    run: ({ file, max_rows, dry }) => file + max_rows + dry },
  free: { type: "string", inputs: { note: api.input.string({}) }, run: () => "ok" } } });`;

Deno.test("task help: examples fill every required input with a placeholder, never VALUE", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Form", FORM);
  const h = await runMain(["workflow", "task", "Form", "fill", "--help"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(h.code, 0, h.stderr);
  assert.match(h.stdout, /^Examples \(replace FILE and MAX_ROWS with your values\):$/m);
  assert.deepEqual(exampleLines(h.stdout), [
    "scout-ai workflow task Form fill --file FILE --max_rows MAX_ROWS --dry",
    "scout-ai workflow task Form fill --file FILE --max_rows MAX_ROWS --dry --json | jq .path",
  ]);
  // no required input, and no value worth showing: the bare command (it runs as written)
  const free = await runMain(["workflow", "task", "Form", "free", "--help"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.deepEqual(exampleLines(free.stdout), [
    "scout-ai workflow task Form free",
    "scout-ai workflow task Form free --json | jq .path",
  ]);
  assert.doesNotMatch(h.stdout + free.stdout, /VALUE/);
});

Deno.test("task help: the built-in ChatAnalyst's examples name --file FILE", async () => {
  await using d = await tempDir();
  const h = await runMain(["workflow", "task", "ChatAnalyst", "chat_agents", "--help"], {
    cwd: d.path,
    env: env(d.path),
  });
  assert.equal(h.code, 0, h.stderr);
  for (const line of exampleLines(h.stdout)) {
    assert.match(line, /^scout-ai workflow task ChatAnalyst chat_agents --file FILE( |$)/);
  }
});

Deno.test("a required input left out is a usage error: exit 2 and the usage hint", async () => {
  await using d = await tempDir();
  userWorkflow(d.path, "Form", FORM);
  const o = { cwd: d.path, env: env(d.path) };
  const r = await runMain(["workflow", "task", "Form", "fill", "--file", "x", "--json"], o);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'scout-ai: Inputs "max_rows" and "dry" of Form/fill are required but were not provided\n' +
      "(run with --help for usage)\n",
  );
  assert.equal(r.stdout, "");
  const ca = await runMain(["workflow", "task", "ChatAnalyst", "chat_agents", "--json"], o);
  assert.equal(ca.code, 2);
  assert.match(ca.stderr, /^scout-ai: Input "file" of ChatAnalyst\/chat_agents is required/);
  assert.match(ca.stderr, /\n\(run with --help for usage\)\n$/);
  // a job name that is not one path component is a bad command line too (R75-7)
  const bad = await runMain([
    "workflow",
    "task",
    "Form",
    "fill",
    "--file",
    "x",
    "--max_rows",
    "2",
    "--dry",
    "--jobname",
    "a/b",
  ], o);
  assert.equal(bad.code, 2, bad.stderr);
});

/** The option terms of a help text's "Options:" section (not the lines a long description wraps to). */
function optionTerms(help: string): string[] {
  const m = /^Options:\n((?: {2}.*\n?)+)/m.exec(help);
  assert.ok(m, help);
  return m[1]!.split("\n").filter((l) => l.startsWith("  -")).map((l) =>
    l.trim().split(/ {2,}/)[0]!
  );
}

Deno.test("task help lists the options 'workflow task --help' lists, deploy options included", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: env(d.path) };
  const group = await runMain(["workflow", "task", "--help"], o);
  const task = await runMain(["workflow", "task", BAKING, "cake", "--help"], o);
  assert.equal(task.code, 0, task.stderr);
  assert.deepEqual(optionTerms(task.stdout), optionTerms(group.stdout));
  for (const flag of ["--deploy <mode>", "--cpus <n>", "--deploy-rules <file>", "--dry-run"]) {
    assert.ok(optionTerms(task.stdout).includes(flag), flag);
  }
  assert.match(task.stdout, /^ {2}--wait +slurm: wait for the top job/m);
  assert.match(task.stdout, /^ {2}--batch-dir <dir> +slurm: batch directories/m);
  assert.doesNotMatch(task.stdout, /--deploy-worker|--deploy-job/); // internal, hidden
});

Deno.test("--jobs-dir given to a task with a jobs_dir input (ChatAnalyst) warns that the input is --jobs_dir", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: env(d.path) };
  const session =
    new URL("../../fixtures/provenance/example/session.chat", import.meta.url).pathname;
  const jobs = new URL("../../fixtures/provenance/example/jobs", import.meta.url).pathname;
  const run = (...extra: string[]) =>
    runMain(["workflow", "task", "ChatAnalyst", "chat_tokens", "--file", session, ...extra], o);
  const mixed = await run("--jobs-dir", join(d.path, "store"), "--json");
  assert.equal(mixed.code, 0, mixed.stderr);
  assert.match(
    mixed.stderr,
    /--jobs-dir sets where this task's job is stored .*--jobs_dir, not given/,
  );
  for (
    const extra of [["--jobs_dir", jobs], ["--jobs-dir", join(d.path, "s2"), "--jobs_dir", jobs]]
  ) {
    const r = await run(...extra, "--json");
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /--jobs-dir sets/);
  }
});
