/**
 * Serving a workflow over MCP in process (SDK in-memory transport): which
 * tasks are offered, §6.2 schemas and §6.5 annotations, calls run persisted
 * jobs (a second call is served from the job store), a failed job is an
 * MCP tool error, an unknown tool a protocol error (-32602), unknown tasks fail before serving.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { workflowMcpServer, workflowMcpTools } from "../../src/tools/mcp/serve.ts";
import { loadWorkflow } from "../../src/workflow/load.ts";
import { ROOT, tempDir } from "../support/cli.ts";

const BAKING = join(ROOT, "fixtures/workflows/Baking");

Deno.test("workflowMcpTools: exported tasks by default, named ones on request, unknown task fails", async () => {
  const wf = await loadWorkflow(BAKING, { cwd: ROOT, env: {} });
  assert.deepEqual(workflowMcpTools(wf).map((t) => t.name), ["whisk", "batter", "cake"]);
  const [broken] = workflowMcpTools(wf, ["broken"]);
  assert.deepEqual(broken, {
    name: "broken",
    description: "Always fails (to show error jobs)",
    inputSchema: {
      type: "object",
      properties: {
        return_path: {
          type: "boolean",
          description: "Instead of the result of the job, return the path where it is persisted",
        },
      },
      required: [],
    },
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  });
  // whisk is an exec export: no return_path (§6.2)
  assert.deepEqual(Object.keys(workflowMcpTools(wf, ["whisk"])[0]!.inputSchema.properties), [
    "eggs",
    "style",
  ]);
  assert.throws(
    () => workflowMcpTools(wf, ["nosuch"]),
    (e: { code?: string }) => e.code === "task_not_found",
  );
});

Deno.test("workflowMcpServer: calls run persisted jobs; failures are tool errors, an unknown tool a protocol error", async () => {
  await using dir = await tempDir();
  const env = { SCOUT_HOME: dir.path };
  const wf = await loadWorkflow(BAKING, { cwd: ROOT, env });
  const server = workflowMcpServer(wf, ["batter", "broken"], { cwd: ROOT, env });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "t", version: "1" });
  await Promise.all([server.connect(b), client.connect(a)]);
  try {
    const r = await client.callTool({ name: "batter", arguments: { eggs: 5 } });
    assert.equal(r.isError, undefined);
    assert.deepEqual(r.content, [{
      type: "text",
      text: '{"batter":"Whisked 5 soft","flour":0.5}',
    }]);
    const step = (r._meta as { step: string }).step;
    const path = join(dir.path, "var/jobs", step);
    assert.ok(existsSync(path) && existsSync(path + ".info"), "persisted job");
    const mtime = (await Deno.stat(path)).mtime?.getTime();
    const again = await client.callTool({ name: "batter", arguments: { eggs: 5 } });
    assert.deepEqual(again.content, r.content);
    assert.equal((await Deno.stat(path)).mtime?.getTime(), mtime, "served from the job store");

    const p = await client.callTool({ name: "batter", arguments: { eggs: 5, return_path: true } });
    assert.deepEqual(p.content, [{ type: "text", text: path }]);

    const broken = await client.callTool({ name: "broken", arguments: {} });
    assert.equal(broken.isError, true);
    assert.deepEqual(broken.content, [{
      type: "text",
      text: 'Job "Baking/broken/Default" failed: The oven is broken',
    }]);

    // an unknown tool is a protocol error (-32602), not a tool error (R96-10)
    await assert.rejects(
      client.callTool({ name: "cake", arguments: {} }),
      (e: { code?: number; message?: string }) =>
        e.code === -32602 && /Tool not found 'cake' in workflow Baking/.test(e.message ?? ""),
    );
  } finally {
    await client.close();
    await server.close();
  }
});
