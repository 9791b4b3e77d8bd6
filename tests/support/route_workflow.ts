/**
 * The `workflow.ts` of an agent on the task route (spec §1.4 step 2), as the
 * CLI tests write it.
 *
 * @module
 */

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
