/**
 * The sessions of `workflow mcp --http` (R115-2), in process with the SDK's
 * client over a real loopback HTTP server: past its limit the router ends
 * the least recently used session with no call open (its client then gets
 * 404), never one with a call open; a DELETE ends a session; a session id no
 * session has is 404, and a POST without one is served statelessly.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpHttpRouter } from "../../src/tools/mcp/http_sessions.ts";
import { inFlight } from "../../src/tools/mcp/http_shutdown.ts";
import { workflowMcpServer } from "../../src/tools/mcp/serve.ts";
import { workflow } from "../../src/workflow/define.ts";
import { tempDir } from "../support/cli.ts";
import { postMcp } from "../support/mcp_http_serve.ts";

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function connected(url: string): Promise<Connected> {
  const client = new Client({ name: "t", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

async function echo(c: Connected, text: string): Promise<unknown> {
  const r: { content?: unknown } = await c.client.callTool({ name: "echo", arguments: { text } });
  return r.content;
}

Deno.test("mcpHttpRouter: past its limit the least recently used idle session ends, not one with a call open; DELETE ends one (R115-2)", async () => {
  await using dir = await tempDir();
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const wf = workflow("Gate", {
    tasks: {
      wait: { type: "string", run: async () => (await gate, "opened") },
      echo: {
        type: "string",
        inputs: { text: { type: "string", description: "t" } },
        run: ({ text }) => String(text),
      },
    },
  });
  const env = { SCOUT_HOME: dir.path };
  const router = mcpHttpRouter(
    () => workflowMcpServer(wf, [], { cwd: dir.path, env }),
    inFlight(),
    2,
  );
  const http = createServer((req, res) => void router.handle(req, res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const port = (http.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/mcp`;
  const clients: Connected[] = [];
  let waiting: Promise<{ content?: unknown }> | undefined;
  try {
    const a = await connected(url);
    clients.push(a);
    const call = a.client.callTool({ name: "wait", arguments: {} });
    waiting = call;
    const b = await connected(url);
    clients.push(b);
    assert.deepEqual(await echo(b, "b"), [{ type: "text", text: "b" }]);
    // a third session: b is the least recently used with no call open (a waits)
    const c = await connected(url);
    clients.push(c);
    await assert.rejects(echo(b, "again"), /Session not found/);
    assert.deepEqual(await echo(c, "c"), [{ type: "text", text: "c" }]);
    release();
    assert.deepEqual((await call).content, [{ type: "text", text: "opened" }]);
    // DELETE ends a session: its id is then unknown (404)
    const id = c.transport.sessionId!;
    await c.transport.terminateSession();
    const echoCall = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "echo" } };
    const gone = await postMcp(port, { "mcp-session-id": id }, echoCall);
    assert.equal(gone.status, 404, gone.body);
    assert.match(gone.body, /Session not found/);
    // without a session: served on its own
    const bare = await postMcp(port, {}, {
      ...echoCall,
      params: { name: "echo", arguments: { text: "x" } },
    });
    assert.equal(bare.status, 200, bare.body);
    assert.match(bare.body, /"text":"x"/);
    assert.equal(bare.headers["mcp-session-id"], undefined);
  } finally {
    release(); // the job ends before its store goes
    await waiting?.catch(() => {});
    for (const c of clients) await c.client.close();
    await router.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  }
});
