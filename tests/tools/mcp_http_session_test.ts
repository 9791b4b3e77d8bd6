/**
 * The end of a Streamable HTTP MCP session (R115-6): when the run ends, a
 * stateful SDK server is sent `DELETE` with its `Mcp-Session-Id` (the MCP
 * spec's "clients SHOULD"), so it drops the session; a server that never
 * answers that `DELETE` holds the close up at most about 2 s.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";

/** A stateful SDK server: one transport per session; what it saw of DELETEs and closes. */
function statefulServer(opts: { answerDelete: boolean }) {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const deletes: (string | null)[] = [];
  const closed: string[] = [];
  const held = new Set<() => void>();
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const id = req.headers.get("mcp-session-id");
    if (req.method === "DELETE") {
      deletes.push(id);
      // a server that never answers: the request stays open until the client goes away
      if (!opts.answerDelete) await new Promise<void>((r) => held.add(r));
    }
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid: string) => void sessions.set(sid, transport!),
        onsessionclosed: (sid: string) => {
          closed.push(sid);
          sessions.delete(sid);
        },
      });
      const server = new McpServer({ name: "stateful", version: "1.0.0" });
      server.registerTool(
        "echo",
        { inputSchema: { text: z.string() } },
        ({ text }: { text: string }) => ({
          content: [{ type: "text" as const, text }],
        }),
      );
      await server.connect(transport);
    }
    return await transport.handleRequest(req);
  });
  return {
    url: `http://127.0.0.1:${srv.addr.port}/mcp`,
    sessions,
    deletes,
    closed,
    async stop() {
      for (const release of held) release();
      for (const t of sessions.values()) await t.close();
      await srv.shutdown();
    },
  };
}

async function useServer(url: string) {
  const resolver = mcpToolResolver();
  const chat = [{ role: "mcp", content: url }, { role: "user", content: "hi" }];
  const { registry } = await assembleTools(chat, new Map(), resolver);
  const out = await runToolCalls([{ name: "echo", arguments: { text: "yo" }, id: "c1" }], {
    registry,
  });
  assert.equal(JSON.parse(String(out[1]!.content)).content, "yo");
  return resolver;
}

Deno.test("mcp http (R115-6): the end of the run ends a stateful server's session with DELETE and its Mcp-Session-Id", async () => {
  const server = statefulServer({ answerDelete: true });
  try {
    const resolver = await useServer(server.url);
    const [sid] = [...server.sessions.keys()];
    assert.ok(sid, "the server gave a session id");
    await resolver.close();
    assert.deepEqual(server.deletes, [sid]);
    assert.deepEqual(server.closed, [sid], "the server dropped the session");
  } finally {
    await server.stop();
  }
});

Deno.test("mcp http (R115-6): a server that never answers the DELETE holds the close up about 2 s at most", async () => {
  const server = statefulServer({ answerDelete: false });
  try {
    const resolver = await useServer(server.url);
    const [sid] = [...server.sessions.keys()];
    const t0 = performance.now();
    await resolver.close();
    const took = performance.now() - t0;
    assert.deepEqual(server.deletes, [sid], "the DELETE was sent");
    assert.ok(took >= 1500 && took < 4000, `close took ${Math.round(took)} ms`);
  } finally {
    await server.stop();
  }
});
