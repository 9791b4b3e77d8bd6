/**
 * R95-1 for MCP over HTTP: a configured key (`Authorization: Bearer …`)
 * never follows a redirect to another origin; a redirect within the origin
 * is followed and the tools work. Loopback servers: A redirects (and, for
 * the same-origin case, proxies to the test MCP server), B records.
 */
import assert from "node:assert/strict";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import type { Message } from "../../src/chat/types.ts";
import { startHttpMcpServer, stopHttpMcpServer } from "../support/mcp_http_child.ts";

const KEY = "MCP-SECRET-r95";

function mcpLine(url: string): Message[] {
  return [{ role: "mcp", content: `${url} whoami` }, { role: "user", content: "hi" }];
}

/** A loopback server: `/r/…` answers 307 to `target(path, port)`; others go to `rest`. */
function server(
  target: (path: string, port: number) => string,
  rest: (req: Request) => Response | Promise<Response> = () => new Response("no", { status: 404 }),
) {
  const seen: { path: string; authorization: string | null }[] = [];
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const u = new URL(req.url);
    seen.push({ path: u.pathname, authorization: req.headers.get("authorization") });
    if (u.pathname.startsWith("/r/")) {
      const location = target(u.pathname.slice(2) + u.search, srv.addr.port);
      return new Response(null, { status: 307, headers: { location } });
    }
    return rest(req);
  });
  return { seen, port: srv.addr.port, [Symbol.asyncDispose]: () => srv.shutdown() };
}

/** The server's tools at `url` with a key configured: the names, whoami's answer, the warnings. */
async function tools(url: string) {
  const config = emptyConfig();
  config.entries.push(...parseConfigText(`key ${KEY} mcp`));
  const warnings: string[] = [];
  const resolver = mcpToolResolver({ config, warn: (m) => warnings.push(m) });
  try {
    const { registry } = await assembleTools(mcpLine(url), new Map(), resolver);
    if (!registry.has("whoami")) return { names: [...registry.keys()], warnings };
    const out = await runToolCalls([{ name: "whoami", arguments: {}, id: "c1" }], { registry });
    const answer = JSON.parse(String(out[1]!.content)) as { content: string };
    return { names: [...registry.keys()], warnings, answer: JSON.parse(answer.content) };
  } finally {
    await resolver.close();
  }
}

Deno.test("R95-1: mcp http: a redirect to another origin is not followed; the key never reaches it", async () => {
  await using b = server(() => "unused");
  await using a = server((path) => `http://localhost:${b.port}${path}`);
  const r = await tools(`http://127.0.0.1:${a.port}/r/mcp`);
  assert.deepEqual(r.names, [], "the server is unusable");
  assert.match(
    r.warnings.join("\n"),
    new RegExp(
      `Refused a redirect from http://127\\.0\\.0\\.1:${a.port} to http://localhost:${b.port}`,
    ),
  );
  assert.deepEqual(b.seen, [], "B got no request");
  assert.ok(a.seen.length >= 1);
  assert.ok(a.seen.every((s) => s.authorization === `Bearer ${KEY}`));
});

Deno.test("R95-1: mcp http: a redirect within the origin is followed with the key; the tools work", async () => {
  const { child, url: upstream } = await startHttpMcpServer();
  try {
    // A proxies /mcp to the test server; /r/mcp redirects there (same origin)
    await using a = server(
      (path, port) => `http://127.0.0.1:${port}${path}`,
      async (req) => {
        const res = await fetch(upstream, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal: req.signal,
        });
        return new Response(res.body, { status: res.status, headers: res.headers });
      },
    );
    const r = await tools(`http://127.0.0.1:${a.port}/r/mcp`);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.answer.authorization, `Bearer ${KEY}`);
    assert.ok(a.seen.some((s) => s.path === "/mcp"), "the redirect was followed");
  } finally {
    await stopHttpMcpServer(child);
  }
});
