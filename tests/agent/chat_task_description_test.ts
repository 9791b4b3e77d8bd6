/**
 * A chat task's description (R126-7): `api.chatTask(name, body,
 * {description})` shows in `workflow task … --help` and as the MCP tool's
 * description (a real `scout-ai` from source, over stdio); a `## <name>`
 * section of the `workflow.md` beside the file still replaces it.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workflow } from "../../src/workflow/define.ts";
import { chatTask } from "../../src/agent/chat_task.ts";
import { homeIn, runScout, tempDir } from "../support/cli.ts";
import { mcpStdioSession } from "../support/mcp_stdio_lines.ts";

const PIPE = `export default (api) => api.workflow("Pipe", {
  tasks: {
    ...api.chatTask("review", ({ chat }) => "ok", { description: "A critic reviews the plan" }),
    ...api.chatTask("plain", () => "ok"),
  },
  exports: { asynchronous: ["review", "plain"] },
});`;

function pipeIn(dir: string, doc?: string): void {
  const d = join(dir, "workflows", "Pipe");
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "workflow.ts"), PIPE);
  if (doc !== undefined) writeFileSync(join(d, "workflow.md"), doc);
}

Deno.test("chatTask(name, body, {description}): the task carries it; without one, none", () => {
  const wf = workflow("PipeLib", {
    tasks: {
      ...chatTask("review", () => "ok", { description: "Reviews", returns: "The review" }),
      ...chatTask("plain", () => "ok"),
    },
  });
  assert.equal(wf.tasks.review!.description, "Reviews");
  assert.equal(wf.tasks.review!.returns, "The review");
  assert.equal(wf.tasks.plain!.description, "");
});

Deno.test("workflow task --help and workflow mcp show a chat task's description", async () => {
  await using d = await tempDir();
  pipeIn(d.path);
  const opts = { cwd: d.path, env: homeIn(d.path) };
  const help = await runScout(["workflow", "task", "Pipe", "review", "--help"], opts);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Pipe\/review: A critic reviews the plan$/m);
  const mcp = await runScout(["workflow", "mcp", "Pipe"], {
    ...opts,
    stdin: mcpStdioSession({ id: 2, method: "tools/list" }),
  });
  assert.equal(mcp.code, 0, mcp.stderr);
  const list = mcp.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((m) => m.id === 2);
  const tools = new Map(
    (list.result.tools as { name: string; description: string }[]).map((t) => [t.name, t]),
  );
  assert.equal(tools.get("review")!.description, "A critic reviews the plan");
  assert.equal(tools.get("plain")!.description, "");
});

Deno.test("a workflow.md section replaces a chat task's description", async () => {
  await using d = await tempDir();
  pipeIn(d.path, "Pipe\n\nA pipeline.\n\n# Tasks\n\n## review\n\nFrom the doc\n");
  const help = await runScout(["workflow", "task", "Pipe", "review", "--help"], {
    cwd: d.path,
    env: homeIn(d.path),
  });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Pipe\/review: From the doc$/m);
});
