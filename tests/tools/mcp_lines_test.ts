/**
 * What an `mcp:` line's words do, run as a real `llm ask`/`agent ask` from
 * source with the SDK test server and the loopback provider: credentials in
 * the line's url never reach the provider or the chat written (R115-3); a
 * tool name the server lacks is an error naming the line and the server's
 * tools, and the alias a warning taught selects its tool (R115-4); a server
 * tool named like one of the run's own (`ask` of `socialize: true`) replaces
 * it with one warning (R115-5).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { DENO, ROOT, runScout, tempDir } from "../support/cli.ts";
import { startHttpMcpServer, stopHttpMcpServer } from "../support/mcp_http_child.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

const DOTS = `${DENO} run -A ${join(ROOT, "tests/support/mcp_server.ts")} --dot-name`;
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

Deno.test("mcp (R115-4): an mcp: line naming a tool the server lacks fails naming the chat line and the server's tools", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ text: "never asked" });
  await Deno.writeTextFile(
    join(dir.path, "q.chat"),
    `user: hi\n\nmcp: stdio '${DOTS}' echo no_such_tool ns_dot\n`,
  );
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", NO_COLOR: "1" };
  const r = await runScout([...ASK, "-O", `url=${srv.url}`, "-c", "q.chat"], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    `scout-ai: MCP server "${DOTS}" has no tool "no_such_tool" (its tools: echo, add, slow, fail, crash, whoami, progress, ns.dot, ask) (q.chat:3)\n`,
  );
  assert.equal(srv.requests.length, 0, "nothing is asked with a wrong tool list");
});

Deno.test("mcp (R115-4): the alias a warning names (ns_dot for ns.dot) selects the tool, called under its real name", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ toolCalls: [{ name: "ns_dot", arguments: {}, id: "c1" }] }, { text: "Done." });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k", NO_COLOR: "1" };
  const question = `mcp: stdio '${DOTS}' echo ns_dot\n\nuser: hi`;
  const r = await runScout([...ASK, "-O", `url=${srv.url}`, "-o", "out.chat", question], {
    env,
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const offered = (srv.requests[0]!.body.tools as { function: { name: string } }[])
    .map((t) => t.function.name);
  assert.deepEqual(offered, ["echo", "ns_dot"]);
  assert.deepEqual(outputs(await Deno.readTextFile(join(dir.path, "out.chat"))), [
    { content: "called ns.dot" },
  ]);
  assert.ok(r.stderr.includes(`Tool "ns.dot" of mcp: stdio '${DOTS}' is offered as "ns_dot"`));
});

Deno.test("mcp (R115-5): a server tool named like an agent's own (ask of socialize: true) replaces it, said once on stderr", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  srv.script({ toolCalls: [{ name: "ask", arguments: {}, id: "c1" }] }, { text: "Done." });
  const home = join(dir.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(
    dir.path,
    "Agent/Boss/start_chat",
    `system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n\nmcp: stdio '${DOTS}' ask\n`,
  );
  const r = await runScout(["agent", "ask", "Boss", "--no-cache", "-o", "s.chat", "go"], {
    cwd: dir.path,
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "k", NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const source = `mcp: stdio '${DOTS}'`;
  const said =
    `Tool "ask" is offered by the caller's tools and by ${source}; the later one (${source}) is used`;
  assert.equal(r.stderr.split(said).length - 1, 1, r.stderr);
  const tools = srv.requests[0]!.body.tools as {
    function: { name: string; description: string };
  }[];
  assert.deepEqual(tools.map((t) => [t.function.name, t.function.description]), [
    ["ask", "I am ask"],
  ]);
  assert.deepEqual(outputs(await Deno.readTextFile(join(dir.path, "s.chat"))), [
    { content: "called ask" },
  ]);
});
