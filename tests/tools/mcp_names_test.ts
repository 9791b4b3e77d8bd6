/**
 * What an MCP server lists, as real processes: a tool name offered by two
 * servers (or by a server and a `kb:` line) is reported once naming both and
 * the winner (R76-9); a tool listed with an invalid definition is skipped
 * with one warning naming it and the server, the others stay (R76-7).
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

/** A raw JSON-RPC MCP server listing a valid `echo` and a `bad` tool whose inputSchema is no object schema. */
const RAW_SERVER = `
import { createInterface } from "node:readline";
const tools = [
  { name: "echo", description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "bad", description: "Broken", inputSchema: { type: "string" } },
];
const send = (m: unknown) => Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(m) + "\\n"));
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.id === undefined) continue;
  const result = msg.method === "initialize"
    ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } }
    : msg.method === "tools/list" ? { tools }
    : { content: [{ type: "text", text: msg.params.arguments.text }] };
  send({ jsonrpc: "2.0", id: msg.id, result });
}
`;

Deno.test("mcp (R76-7): a tool with an invalid inputSchema is skipped with one warning; the server's other tools stay", async () => {
  const dir = await Deno.makeTempDir();
  const script = join(dir, "raw_server.ts");
  await Deno.writeTextFile(script, `import process from "node:process";\n${RAW_SERVER}`);
  const cmd = `${DENO} run -A ${script}`;
  const warnings: string[] = [];
  const mcp = mcpToolResolver({ warn: (m) => warnings.push(m) });
  try {
    const only = await assembleTools(
      [{ role: "mcp", content: `stdio '${cmd}' echo` }],
      new Map(),
      mcp,
    );
    assert.deepEqual([...only.registry.keys()], ["echo"]);
    assert.deepEqual(warnings, [], "the bad tool was not asked for");
    const all = await assembleTools([{ role: "mcp", content: `stdio '${cmd}'` }], new Map(), mcp);
    assert.deepEqual([...all.registry.keys()], ["echo"]);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^MCP server ".*raw_server\.ts": tool "bad" skipped, its definition is invalid \(inputSchema\.type: .*\)$/,
    );
    const out = await all.registry.get("echo")!.impl!("echo", { text: "still here" }, {} as never);
    assert.equal(out, "still here");
  } finally {
    await mcp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp (R76-8): a reply over the 10 MiB message limit says so, naming the tool", async () => {
  const dir = await Deno.makeTempDir();
  const script = join(dir, "raw_server.ts");
  const big = RAW_SERVER.replace(
    `{ content: [{ type: "text", text: msg.params.arguments.text }] }`,
    `{ content: [{ type: "text", text: "x".repeat(11 * 1024 * 1024) }] }`,
  );
  await Deno.writeTextFile(script, `import process from "node:process";\n${big}`);
  const mcp = mcpToolResolver();
  try {
    const { registry } = await assembleTools(
      [{ role: "mcp", content: `stdio '${DENO} run -A ${script}' echo` }],
      new Map(),
      mcp,
    );
    await assert.rejects(
      () => Promise.resolve(registry.get("echo")!.impl!("echo", { text: "x" }, {} as never)),
      /^ScoutError: MCP server ".*raw_server\.ts": the reply of "echo" exceeded the 10 MiB MCP message limit \(the server was stopped\)$/,
    );
  } finally {
    await mcp.close();
    await Deno.remove(dir, { recursive: true });
  }
});
