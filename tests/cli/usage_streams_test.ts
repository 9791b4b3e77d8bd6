/**
 * Where usage text goes: shown because of a usage error (exit 2) it is on
 * stderr, asked for with --help (exit 0) on stdout; and
 * `workflow task WORKFLOW`, the documented way to list a workflow's tasks,
 * answers on stdout with exit 0.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { buildProgram } from "../../src/cli/main.ts";
import { bufferIo } from "../support/buffer_io.ts";
import { commandTree } from "../../src/cli/completion_tree.ts";

const BAKING = join(ROOT, "fixtures", "workflows", "Baking");

/** The root, every command group, and the commands that print their usage when given nothing. */
function usageCommands(): string[][] {
  const program = buildProgram({ io: bufferIo(), exitCode: 0, debug: false, logLevel: 5 });
  const groups = commandTree(program).filter((s) => s.subcommands.length > 0).map((s) => s.path);
  return [...groups, ["workflow", "task"], ["agent", "kb"]];
}

Deno.test("usage after a usage error (exit 2) is on stderr; the same text with --help on stdout", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { SCOUT_HOME: d.path, HOME: d.path, NO_COLOR: "1" }, tty: true };
  const paths = usageCommands();
  assert.ok(paths.length >= 9, JSON.stringify(paths));
  for (const path of paths) {
    const name = `scout-ai ${path.join(" ")}`.trimEnd();
    const bad = await runMain(path, o);
    assert.equal(bad.code, 2, name);
    assert.equal(bad.stdout, "", `${name}: usage on stdout`);
    assert.match(bad.stderr, /^Usage: scout-ai/, name);
    const help = await runMain([...path, "--help"], o);
    assert.equal(help.code, 0, name);
    assert.equal(help.stderr, "", name);
    assert.equal(help.stdout, bad.stderr, `${name}: --help prints the same usage`);
  }
});

Deno.test("workflow task WORKFLOW lists its tasks on stdout, exit 0 (as with --help)", async () => {
  await using d = await tempDir();
  const o = { cwd: d.path, env: { SCOUT_HOME: d.path, HOME: d.path, NO_COLOR: "1" } };
  const r = await runMain(["workflow", "task", BAKING], o);
  assert.deepEqual([r.code, r.stderr], [0, ""]);
  assert.match(r.stdout, /^Tasks:\n {2}whisk +Whisk some eggs\. \[string\]\n {2}batter /m);
  assert.equal((await runMain(["workflow", "task", BAKING, "--help"], o)).stdout, r.stdout);
  // its help says so
  const help = await runMain(["workflow", "task", "--help"], o);
  assert.match(
    help.stdout,
    /'scout-ai workflow task WORKFLOW' lists its tasks \(on stdout, exit 0\)/,
  );
  // a workflow that cannot be found is still an error: a WORKFLOW naming none is a usage error (R94-4)
  const missing = await runMain(["workflow", "task", "NoSuchWorkflow"], o);
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, "");
  // with inputs or options the TASK was left out (a script's empty $TASK): a usage error
  const rests = [
    ["--eggs", "3"],
    ["--json"],
    ["--print-path"],
    ["--jobname", "x"],
    ["--cpus", "2"],
    ["--deploy", "serial"],
    ["--batch-dir", "b"],
  ];
  for (const rest of rests) {
    const r2 = await runMain(["workflow", "task", BAKING, ...rest], o);
    assert.equal(r2.code, 2, rest.join(" "));
    assert.equal(r2.stdout, "");
    assert.match(
      r2.stderr,
      /^scout-ai: Missing TASK after .*Baking \(its tasks: whisk, batter, cake/,
    );
    assert.match(r2.stderr, /\(run with --help for usage\)\n$/);
  }
  // --help wins: the task list, as help
  const helpWins = await runMain(["workflow", "task", BAKING, "--help", "--json"], o);
  assert.deepEqual([helpWins.code, helpWins.stdout], [0, r.stdout]);
  // a task the workflow has not: a usage error too, as an unknown input is
  const nope = await runMain(["workflow", "task", BAKING, "nope"], o);
  assert.equal(nope.code, 2);
  assert.match(nope.stderr, /Task "nope" not found in workflow "Baking"[^\n]*\n\(run with --help/);
});
