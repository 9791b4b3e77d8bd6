/**
 * The `workflow.ts` of an agent on the task route (spec §1.4 step 2), as the
 * CLI tests write it, the one job its `ask` task made, and a run of it
 * stopped once it delegates.
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

/**
 * Waits until the provider has had `requests` requests (Boss's, then
 * Worker's), leaves the call 300 ms to be under way, then sends `child`
 * SIGTERM and returns its output; fails when it ended first or a minute
 * passed.
 *
 * @param child the `workflow task` or `agent ask` process
 * @param requests how many requests the provider has had so far
 * @returns the child's output
 */
export async function sigtermOnceDelegated(
  child: Deno.ChildProcess,
  requests: () => number,
): Promise<Deno.CommandOutput> {
  let ended = false;
  void child.status.then(() => ended = true);
  const t0 = Date.now();
  while (requests() < 2) {
    if (ended || Date.now() - t0 > 60_000) {
      const out = await child.output();
      throw new Error(`Worker's request never arrived: ${new TextDecoder().decode(out.stderr)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300));
  child.kill("SIGTERM");
  return await child.output();
}
