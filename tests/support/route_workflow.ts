/**
 * The `workflow.ts` of an agent on the task route (spec §1.4 step 2), as the
 * CLI tests write it, and the one job its `ask` task made.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The text of a `workflow.ts` for agent directory `dir` whose workflow `name`
 * has one chat task, `ask`, that runs the agent of `dir` on the job's chat.
 */
export function routeWorkflowText(name: string, dir: string): string {
  return `export default (api) => api.workflow(${JSON.stringify(name)}, {
  tasks: { ...api.chatTask("ask", async ({ agent, chat }) => await agent(${
    JSON.stringify(dir)
  }, { chat: chat() })) },
});\n`;
}

/**
 * The one job under `<home>/var/jobs/<workflow>/ask` (its path without `.info`).
 *
 * @param home SCOUT_HOME
 * @param workflow the route workflow's name
 * @returns the job's path
 */
export function askJob(home: string, workflow: string): string {
  const dir = join(home, "var/jobs", workflow, "ask");
  const names = readdirSync(dir).filter((n) => n.endsWith(".info"));
  assert.equal(names.length, 1, names.join(", "));
  return join(dir, names[0]!.slice(0, -".info".length));
}
