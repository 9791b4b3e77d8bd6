/**
 * `scout-ai completion zsh` loaded in a real interactive zsh (under zpty, by
 * tests/support/zsh_complete.zsh) and completed with TAB: the bash tables
 * through `bashcompinit`, calling back the source entry for names.
 */
import { join } from "node:path";
import { ROOT, tempDir } from "../support/cli.ts";
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

/** Completes each case's line in zsh and compares what it offers with the case. */
async function check(p: Project, cases: [string, string][]): Promise<void> {
  const driver = join(ROOT, "tests", "support", "zsh_complete.zsh");
  const lines = cases.map(([line]) => line);
  assertMatches(cases, await runShell(p, "zsh", ["-f", driver, p.script, ...lines]));
}

Deno.test("zsh loads the script and completes commands, options, workflows, tasks, endpoints and backends", async () => {
  needShell("zsh");
  await using dir = await tempDir();
  const p = await project(dir.path, "zsh");
  await check(p, [
    ...nameCases(),
    // an unknown workflow has no tasks: zsh offers files, as `complete -o default` asks
    ["scout-ai workflow task Nope ", "Agent workflows"],
  ]);
});

Deno.test("zsh completes a task's inputs after WORKFLOW TASK, with the options; after -- the inputs alone", async () => {
  needShell("zsh");
  await using dir = await tempDir();
  await check(await project(dir.path, "zsh"), inputCases());
});

Deno.test("zsh completes agent names for agent ask, find and kb; after the agent, ask's options", async () => {
  needShell("zsh");
  await using dir = await tempDir();
  await check(await project(dir.path, "zsh"), [
    ...agentCases(),
    // the question: no names, so zsh offers files, as `complete -o default` asks
    ["scout-ai agent ask Planner ", "Agent workflows"],
  ]);
});
