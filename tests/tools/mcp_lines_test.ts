/**
 * What an `mcp:` line's words do, run as a real `llm ask` from source with
 * the SDK test server and the loopback provider: credentials in the line's
 * url never reach the provider or the chat written (R115-3).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { startHttpMcpServer, stopHttpMcpServer } from "../support/mcp_http_child.ts";
import { startProviderServer } from "../support/provider_server.ts";

const ASK = ["llm", "ask", "-b", "openai", "-m", "m", "--no-cache"];

/** The content (and error mark) of the chat's function_call_output messages. */
function outputs(chatText: string): { content: string; error?: string }[] {
  return parse(chatText).filter((m) => m.role === "function_call_output").map((m) => {
    const { content, error } = JSON.parse(String(m.content));
    return error === undefined ? { content } : { content, error };
  });
}

Deno.test("mcp (R115-3): credentials in an mcp: url reach neither the provider nor the chat written, masked in a tool's error output", async () => {
  await using dir = await tempDir();
  const server = await startHttpMcpServer();
  try {
    await using srv = await startProviderServer();
    srv.script(
      { toolCalls: [{ name: "fail", arguments: { message: "no luck" }, id: "c1" }] },
      { text: "Done." },
    );
    const url = server.url.replace("http://", "http://bob:Pw5ecret@") + "?key=Qk5ecret";
    const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", NO_COLOR: "1" };
    const question = `mcp: ${url} fail\n\nuser: hi`;
    const r = await runScout([...ASK, "-O", `url=${srv.url}`, "-o", "out.chat", question], {
      env,
      cwd: dir.path,
    });
    assert.equal(r.code, 0, r.stderr);
    const masked = server.url.replace("http://", "http://bob:***@") + "?key=***";
    const [out] = outputs(await Deno.readTextFile(join(dir.path, "out.chat")));
    assert.deepEqual(out, {
      content: `MCP server "${masked}": tool "fail" failed: no luck`,
      error: "error",
    });
    assert.equal(srv.requests.length, 2);
    const sent = JSON.stringify(srv.requests.map((q) => q.body));
    assert.ok(!/Pw5ecret|Qk5ecret/.test(sent), sent);
    assert.ok(sent.includes(`MCP server \\"${masked}\\"`), sent);
    assert.ok(!/Pw5ecret|Qk5ecret/.test(r.stdout + r.stderr), r.stdout + r.stderr);
  } finally {
    await stopHttpMcpServer(server.child);
  }
});
