/**
 * Makes ChatAnalyst findable by name (`workflow task ChatAnalyst …`,
 * `tool: ChatAnalyst`) without loading it: the workflow is imported on
 * first use. It is looked up after `./workflows/` and
 * `$SCOUT_HOME/workflows/`, so a user's own ChatAnalyst wins.
 *
 * @module
 */
import { registerBuiltinWorkflow } from "../workflow/builtins.ts";

registerBuiltinWorkflow(
  "ChatAnalyst",
  async () => (await import("./workflow.ts")).chatAnalystWorkflow(),
);
