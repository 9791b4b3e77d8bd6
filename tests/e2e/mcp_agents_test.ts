/**
 * MCP servers in a multi-agent run, as a real process (`agent ask` from
 * source) with the repository's MCP test server: one client per server for
 * the whole run (README "MCP"), shared by the caller and the specialists it
 * asks, closed when the run ends.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { DENO, ROOT, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { alive, recordedPids } from "../support/mcp_server.ts";
import { put } from "../support/files.ts";

const SERVER = `${DENO} run -A ${join(ROOT, "tests/support/mcp_server.ts")}`;

/**
 * The MCP test server over Streamable HTTP on a free port. A server that ends
 * before printing its url (a first start racing other processes for Deno's
 * caches) is started once more; then the test fails with what it printed.
 */
async function httpMcpServer(attempt = 1): Promise<{ url: string } & AsyncDisposable> {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", join(ROOT, "tests/support/mcp_server.ts"), "--http", "0"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already ended */ }
    await reader.cancel();
    await child.stderr.cancel().catch(() => {});
    await child.status;
  };
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) {
      const err = await new Response(child.stderr).text().catch(() => "");
      await stop();
      if (attempt < 2) return await httpMcpServer(attempt + 1);
      throw new Error(`the MCP server ended before printing its url: ${line}${err}`);
    }
    line += value;
  }
  const url = (JSON.parse(line.split("\n")[0]!) as { url: string }).url;
  return { url, [Symbol.asyncDispose]: stop };
}

/**
 * The model of both MCP tests: the Boss calls `add` itself, then twice `delegation(turn)`,
 * then answers "boss done"; the delegate (`You are <who>`) calls `add` and answers with it.
 */
function addingServer(
  who: string,
  delegation: (turn: number) => { name: string; arguments: Record<string, unknown> },
) {
  let bossTurn = 0;
  return startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const last = msgs.at(-1)!;
      if (msgs[0]!.content === `You are ${who}`) {
        return last.role === "tool"
          ? { text: `${who.toLowerCase()}: ${last.content}` }
          : { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 }, id: "d1" }] };
      }
      bossTurn++;
      if (bossTurn === 1) {
        return { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 }, id: "b1" }] };
      }
      if (bossTurn <= 3) return { toolCalls: [{ ...delegation(bossTurn), id: `b${bossTurn}` }] };
      return { text: "boss done" };
    },
  });
}

Deno.test("agent ask: the caller and its specialists share one MCP client per server for the run", async () => {
  await using dir = await tempDir();
  await using srv = await addingServer("Worker", (turn) => ({
    name: "ask",
    arguments: { agent: "Worker", prompt: turn === 2 ? "add please" : "add again" },
  }));
  const home = join(dir.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(
    dir.path,
    "Agent/Boss/start_chat",
    `system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n\nmcp: stdio '${SERVER}' add\n`,
  );
  put(dir.path, "Agent/Worker/start_chat", "system: You are Worker\n\nendpoint: ep\n");
  const pidFile = join(dir.path, "pids");
  const r = await runScout(["agent", "ask", "Boss", "--no-cache", "-o", "s.chat", "go"], {
    cwd: dir.path,
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "k", MCP_PID_FILE: pidFile, NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "boss done");
  // the Boss's own call and both Worker runs (which inherit the mcp: line) used the server
  const outs = parse(await Deno.readTextFile(join(dir.path, "s.chat")))
    .filter((m) => m.role === "function_call_output")
    .map((m) => JSON.parse(String(m.content)).content);
  assert.deepEqual(outs, ["2", "worker: 5", "worker: 5"]);
  const pids = await recordedPids(pidFile);
  assert.equal(pids.length, 1, `one server for the run, started ${pids.length} times`);
  assert.ok(!alive(pids[0]!), "closed when the run ends");
});

Deno.test("agent ask: a chat's config: key reaches an HTTP MCP server (the run's config store)", async () => {
  await using dir = await tempDir();
  await using server = await httpMcpServer();
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const last = msgs.at(-1)!;
      if (last.role === "tool") return { text: `auth=${JSON.parse(last.content).authorization}` };
      return { toolCalls: [{ name: "whoami", id: "w1", arguments: {} }] };
    },
  });
  const home = join(dir.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(dir.path, "Agent/Boss/start_chat", "system: You are Boss\n\nendpoint: ep\n");
  put(dir.path, "q.chat", `config: key SECRET mcp\n\nmcp: ${server.url} whoami\n\nuser: go\n`);
  const r = await runScout(["agent", "ask", "Boss", "--no-cache", "-c", "q.chat"], {
    cwd: dir.path,
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "k", NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "auth=Bearer SECRET");
});

Deno.test("agent ask: an agent that agent.ts loads and hands off to shares the run's MCP client", async () => {
  await using dir = await tempDir();
  await using srv = await addingServer("Helper", () => ({
    name: "hand_off_to_helper",
    arguments: { message: "add" },
  }));
  const home = join(dir.path, "home");
  const mcp = `mcp: stdio '${SERVER}' add`;
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(dir.path, "Agent/Boss/start_chat", `system: You are Boss\n\nendpoint: ep\n\n${mcp}\n`);
  put(
    dir.path,
    "Agent/Boss/agent.ts",
    `export default async (api, boss) => {
  const helper = await api.loadAgent("Helper", { runtime: boss.runtime });
  api.delegate(boss, helper, "helper", "Adds things");
};\n`,
  );
  put(dir.path, "Agent/Helper/start_chat", `system: You are Helper\n\nendpoint: ep\n\n${mcp}\n`);
  const pidFile = join(dir.path, "pids");
  const r = await runScout(["agent", "ask", "Boss", "--no-cache", "go"], {
    cwd: dir.path,
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "k", MCP_PID_FILE: pidFile, NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "boss done");
  const pids = await recordedPids(pidFile);
  assert.equal(pids.length, 1, `one server for the run, started ${pids.length} times`);
});
