/**
 * What an MCP server lists, as real processes: a tool name offered by two
 * servers (or by a server and a `kb:` line) is reported once naming both and
 * the winner (R76-9).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import type { ToolEntry } from "../../src/tools/types.ts";
import { DENO, ROOT } from "../support/cli.ts";
import type { Message } from "../../src/chat/types.ts";

const SERVER = join(ROOT, "tests/support/mcp_server.ts");
const A = `${DENO} run -A ${SERVER} --name a`;
const B = `${DENO} run -A ${SERVER} --name b`;

function kbEcho(): ToolEntry {
  return {
    definition: {
      type: "function",
      function: { name: "echo", description: "kb", parameters: { type: "object" } },
    },
    validate: () => [],
    impl: () => "from kb",
  };
}

Deno.test("tools (R76-9): a name offered by two mcp: servers, or by a server and kb:, is reported once; the later wins", async () => {
  const mcp = mcpToolResolver();
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  try {
    const chat: Message[] = [
      { role: "mcp", content: `stdio '${A}' echo add` },
      { role: "mcp", content: `stdio '${A}' echo` }, // the same server again: no collision
      { role: "mcp", content: `stdio '${B}' echo` },
      { role: "user", content: "hi" },
    ];
    const { registry } = await assembleTools(chat, new Map(), mcp, { warn });
    assert.deepEqual([...registry.keys()].sort(), ["add", "echo"]);
    assert.deepEqual(warnings, [
      `Tool "echo" is offered by mcp: stdio '${A}' and by mcp: stdio '${B}'; the later one (mcp: stdio '${B}') is used`,
    ]);

    warnings.length = 0;
    const resolver = { ...mcp, mcpTools: mcp.mcpTools, kbTools: () => Promise.resolve([kbEcho()]) };
    const withKb = await assembleTools(
      [{ role: "mcp", content: `stdio '${A}' echo` }, { role: "kb", content: "mykb echo" }],
      new Map(),
      resolver,
      { warn },
    );
    const def = withKb.registry.get("echo")!.definition as { function: { description: string } };
    assert.equal(def.function.description, "kb");
    assert.deepEqual(warnings, [
      `Tool "echo" is offered by mcp: stdio '${A}' and by kb: mykb; the later one (kb: mykb) is used`,
    ]);
  } finally {
    await mcp.close();
  }
});
