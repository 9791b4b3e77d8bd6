/**
 * MCP client against a real SDK server in a child process (stdio and
 * Streamable HTTP): listing and name filters, Ruby's result normalisation,
 * `isError`, a crashed server and a timed-out call as error outputs naming
 * the server, an unstartable server reported once, Bearer only for a
 * configured key, and no child left after `close()`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { McpSession } from "../../src/tools/mcp/session.ts";
import { normalizeMcpResult, parseMcpLine } from "../../src/tools/mcp/spec.ts";
import { urlScopes } from "../../src/config/url_scopes.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import { ROOT, tempDir } from "../support/cli.ts";
import { recordedPids as pids, running } from "../support/mcp_server.ts";
import { waitFor } from "../support/wait.ts";
import type { Message } from "../../src/chat/types.ts";
import { startHttpMcpServer, stopHttpMcpServer } from "../support/mcp_http_child.ts";

const DENO = Deno.execPath();
const SERVER = join(ROOT, "tests/support/mcp_server.ts");
const STDIO = `${DENO} run -A ${SERVER}`;

async function call(
  registry: Awaited<ReturnType<typeof assembleTools>>["registry"],
  name: string,
  args: Record<string, unknown>,
) {
  const out = await runToolCalls([{ name, arguments: args, id: "c1" }], { registry });
  return JSON.parse(String(out[1]!.content)) as { content: string; error?: string };
}

function mcpLine(...tokens: string[]): Message[] {
  return [{ role: "mcp", content: tokens.join(" ") }, { role: "user", content: "hi" }];
}

Deno.test("mcp spec: lines, URL scopes (Ruby get_url_server_tokens) and normalisation", () => {
  assert.deepEqual(parseMcpLine(["stdio", "srv --a 'b c'", "echo"]), {
    kind: "stdio",
    argv: ["srv", "--a", "b c"],
    label: "srv --a 'b c'",
    names: ["echo"],
  });
  assert.equal(parseMcpLine(["https://x.org/mcp"]).kind, "http");
  assert.throws(() => parseMcpLine(["ftp://x"]), /expected an http\(s\) URL/);
  assert.throws(() => parseMcpLine(["stdio"]), /needs a command/);
  assert.deepEqual(urlScopes("https://api.example.com/mcp", "mcp"), [
    "mcp.api",
    "mcp.example",
    "mcp.api.example",
    "mcp.api.example.com",
  ]);
  assert.equal(normalizeMcpResult({ content: [{ type: "text", text: "hi" }] }), "hi");
  assert.deepEqual(
    normalizeMcpResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }),
    [
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ],
  );
});

Deno.test("mcp stdio: tools listed and called, isError and a crash are error outputs naming the server, no child after close", async () => {
  await using dir = await tempDir();
  const pidFile = join(dir.path, "pids");
  const env = { ...Deno.env.toObject(), MCP_PID_FILE: pidFile };
  const resolver = mcpToolResolver({ env, cwd: ROOT });
  try {
    const only = await assembleTools(
      mcpLine("stdio", `'${STDIO}'`, "echo", "add"),
      new Map(),
      resolver,
    );
    assert.deepEqual([...only.registry.keys()], ["echo", "add"]);
    const { registry } = await assembleTools(mcpLine("stdio", `'${STDIO}'`), new Map(), resolver);
    assert.deepEqual([...registry.keys()].sort(), [
      "add",
      "crash",
      "echo",
      "fail",
      "progress",
      "slow",
      "whoami",
    ]);
    const echo = registry.get("echo")!.definition as {
      function: { parameters: { properties: Record<string, unknown> } };
    };
    assert.deepEqual(Object.keys(echo.function.parameters.properties), ["text"]);
    assert.equal((await pids(pidFile)).length, 1, "one session for both lines");

    assert.equal((await call(registry, "echo", { text: "hello" })).content, "hello");
    assert.equal((await call(registry, "add", { a: 2, b: 3 })).content, "5");
    const failed = await call(registry, "fail", { message: "no luck" });
    assert.equal(failed.error, "error");
    assert.match(failed.content, /MCP server ".*mcp_server\.ts": tool "fail" failed: no luck/);

    const first = (await pids(pidFile))[0]!;
    const crashed = await call(registry, "crash", {});
    assert.equal(crashed.error, "error");
    assert.match(
      JSON.parse(crashed.content).exception,
      /^MCP server ".*mcp_server\.ts": call of "crash" failed: .*Connection closed/,
    );
    // the run goes on: the next call starts the server again
    assert.equal((await call(registry, "echo", { text: "again" })).content, "again");
    const all = await pids(pidFile);
    assert.equal(all.length, 2);
    assert.ok(await waitFor(() => !running(first), 10_000), "the crashed server has ended");
    assert.equal(running(all[1]!), true);
  } finally {
    await resolver.close();
  }
  for (const pid of await pids(pidFile)) {
    assert.ok(await waitFor(() => !running(pid), 10_000), `child ${pid} is gone`);
  }
});

Deno.test("mcp: a server that cannot start is reported once and gives no tools; a timeout is an error output", async () => {
  const warnings: string[] = [];
  const config = emptyConfig();
  config.entries.push(...parseConfigText("timeout 2 mcp"));
  const resolver = mcpToolResolver({ cwd: ROOT, config, warn: (m) => warnings.push(m) });
  try {
    const line = mcpLine("stdio", "'/nonexistent/mcp-server --x'");
    assert.equal((await assembleTools(line, new Map(), resolver)).registry.size, 0);
    assert.equal((await assembleTools(line, new Map(), resolver)).registry.size, 0);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^MCP server "\/nonexistent\/mcp-server --x": cannot start or connect: .*\(its tools are not available\)$/,
    );

    const { registry } = await assembleTools(
      mcpLine("stdio", `'${STDIO}'`, "slow"),
      new Map(),
      resolver,
    );
    const t0 = performance.now();
    const out = await call(registry, "slow", { ms: 10_000 });
    assert.ok(performance.now() - t0 < 8000, "the configured timeout applies");
    assert.equal(out.error, "error");
    assert.match(
      JSON.parse(out.content).exception,
      /^MCP server .*: call of "slow" failed: .*timed out/i,
    );
  } finally {
    await resolver.close();
  }
});

Deno.test("mcp http: Streamable HTTP tools; Authorization only when a key is configured for that URL", async () => {
  const { child, url } = await startHttpMcpServer();
  try {
    const who = async (configText: string) => {
      const config = emptyConfig();
      config.entries.push(...parseConfigText(configText));
      const resolver = mcpToolResolver({ config });
      try {
        const { registry } = await assembleTools(
          mcpLine(url, "whoami", "echo"),
          new Map(),
          resolver,
        );
        assert.deepEqual([...registry.keys()].sort(), ["echo", "whoami"]);
        return JSON.parse((await call(registry, "whoami", {})).content).authorization;
      } finally {
        await resolver.close();
      }
    };
    assert.equal(await who(""), null, "no key: no header (Ruby sent 'Bearer ')");
    assert.equal(await who("key OTHER mcp.example"), null, "a key for another host is not sent");
    assert.equal(await who("key SECRET-1 mcp.127.0.0.1"), "Bearer SECRET-1");
    assert.equal(await who("key SECRET-2 mcp"), "Bearer SECRET-2");
  } finally {
    await stopHttpMcpServer(child);
  }
});

Deno.test("mcp stdio (R78-3): a caller's env is merged over the SDK's safe defaults, its values winning", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "env");
  const path = Deno.env.get("PATH");
  assert.ok(path, "the test needs PATH set");
  // the "server" records its exported environment and exits (the start fails)
  const session = new McpSession(
    { kind: "stdio", argv: ["sh", "-c", `env > '${out}'; exit 1`], label: "env", names: [] },
    { env: { FOO: "1", HOME: "/given/home", BAR: undefined } },
  );
  try {
    await assert.rejects(session.listTools(), /MCP server "env": cannot start/);
  } finally {
    await session.close();
  }
  const seen = new Map(
    (await Deno.readTextFile(out)).split("\n").filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  assert.equal(seen.get("FOO"), "1");
  assert.equal(seen.get("HOME"), "/given/home", "the given value wins");
  assert.equal(seen.get("PATH"), path, "PATH comes from the defaults");
  assert.equal(seen.has("BAR"), false);
});
