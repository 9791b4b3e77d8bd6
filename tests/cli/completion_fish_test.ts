/**
 * `scout-ai completion fish` loaded in a real fish and completed with
 * `complete -C LINE` (what fish offers on TAB), calling back the source
 * entry for names.
 */
import { tempDir } from "../support/cli.ts";
import {
  agentCases,
  assertMatches,
  inputCases,
  nameCases,
  needShell,
  type Project,
  project,
  runShell,
} from "./completion_support.ts";

/** Sources the script, then prints the matches of each line (`$argv[2..]`) on a line. */
const PROGRAM = `source $argv[1]
for line in $argv[2..-1]
  echo (complete -C $line | string replace -r '\\t.*' '' | string join ' ')
end`;

/** Completes each case's line in fish and compares what it offers with the case. */
async function check(p: Project, cases: [string, string][]): Promise<void> {
  const lines = cases.map(([line]) => line);
  assertMatches(
    cases,
    await runShell(p, "fish", ["--no-config", "-c", PROGRAM, p.script, ...lines]),
  );
}

Deno.test("fish loads the script and completes commands, options, workflows, tasks, endpoints and backends", async () => {
  needShell("fish");
  await using dir = await tempDir();
  const p = await project(dir.path, "fish");
  await check(p, [
    ...nameCases(),
    ["scout-ai workflow task Nope ", ""], // an unknown workflow has no tasks (and fish offers no files)
  ]);
});

Deno.test("fish completes a task's inputs after WORKFLOW TASK, with the options; after -- the inputs alone", async () => {
  needShell("fish");
  await using dir = await tempDir();
  await check(await project(dir.path, "fish"), inputCases());
});

Deno.test("fish completes agent names for agent ask, find and kb; after the agent, ask's options", async () => {
  needShell("fish");
  await using dir = await tempDir();
  await check(await project(dir.path, "fish"), [
    ...agentCases(),
    ["scout-ai agent ask Planner ", ""], // the question: no agent names again (and no files)
  ]);
});
