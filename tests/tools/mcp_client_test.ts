/**
 * The MCP client against SDK servers (real processes) that stretch it: a
 * `tools/list` cursor that never ends (R96-4), an HTTP server that dies while
 * its reply streams (R96-5), tool names a provider would refuse (R96-6) and a
 * long tool that reports progress within the timeout (R96-9).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { runToolCalls } from "../../src/tools/dispatch.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import type { ConfigStore } from "../../src/config/store.ts";
import { DENO, ROOT, runScout, tempDir } from "../support/cli.ts";
import { LONG_TOOL_NAME } from "../support/mcp_server.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { parse } from "../../src/chat/parse.ts";
import type { Message } from "../../src/chat/types.ts";
import type { ToolRegistry } from "../../src/tools/types.ts";
import { startHttpMcpServer, stopHttpMcpServer } from "../support/mcp_http_child.ts";

const SERVER = join(ROOT, "tests/support/mcp_server.ts");
const STDIO = `${DENO} run -A ${SERVER}`;

function mcpLine(...tokens: string[]): Message[] {
  return [{ role: "mcp", content: tokens.join(" ") }, { role: "user", content: "hi" }];
}

function configWith(text: string): ConfigStore {
  const config = emptyConfig();
  config.entries.push(...parseConfigText(text));
  return config;
}

async function call(registry: ToolRegistry, name: string, args: Record<string, unknown>) {
  const out = await runToolCalls([{ name, arguments: args, id: "c1" }], { registry });
  return JSON.parse(String(out[1]!.content)) as { content: string; error?: string };
}

/** `p`, or "late" when it has not settled within `ms`. */
function settled<T>(p: Promise<T>, ms: number): Promise<T | "late"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms))),
  ]);
}

for (const mode of ["repeat", "grow"] as const) {
  Deno.test(`mcp (R96-4): a tools/list cursor that never ends (${mode}) stops with one warning; the tools listed so far stay`, async () => {
    const warnings: string[] = [];
    const resolver = mcpToolResolver({ cwd: ROOT, warn: (m) => warnings.push(m) });
    try {
      const line = mcpLine("stdio", `'${STDIO} --cursor ${mode}'`);
      const out = await settled(assembleTools(line, new Map(), resolver), 30_000);
      assert.notEqual(out, "late", "the listing ends");
      if (out === "late") return;
      const names = [...out.registry.keys()];
      const pages = mode === "repeat" ? 1 : 100;
      assert.deepEqual(
        names.sort(),
        ["echo", ...Array.from({ length: pages }, (_, i) => `page${i}`)].sort(),
      );
      assert.equal(warnings.length, 1, warnings.join("\n"));
      const why = mode === "repeat"
        ? `its cursor "again" came again`
        : "still not ended after 100 pages";
      assert.match(
        warnings[0]!,
        new RegExp(
          `^MCP server ".*mcp_server\\.ts --cursor ${mode}": tools/list stopped, ${why}; the ${
            pages + 1
          } tools listed so far are used$`,
        ),
      );
      assert.equal(
        (await call(out.registry, "echo", { text: "still works" })).content,
        "still works",
      );
    } finally {
      await resolver.close();
    }
  });
}

Deno.test("mcp (R96-9): a tool running past the mcp timeout that reports progress within it succeeds; one that does not still times out", async () => {
  const resolver = mcpToolResolver({ cwd: ROOT, config: configWith("timeout 1 mcp") });
  try {
    const { registry } = await assembleTools(
      mcpLine("stdio", `'${STDIO}'`, "progress"),
      new Map(),
      resolver,
    );
    const out = await call(registry, "progress", { ms: 3000, every: 200 });
    assert.equal(out.error, undefined, out.content);
    assert.equal(out.content, "done 15 progress", "a progress token was sent");
    const quiet = await call(registry, "progress", { ms: 3000, every: 2000 });
    assert.equal(quiet.error, "error");
    assert.match(JSON.parse(quiet.content).exception, /call of "progress" failed: .*timed out/i);
  } finally {
    await resolver.close();
  }
});

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

Deno.test("mcp (R96-6): tool names a provider refuses get a safe alias, unique, with one warning each; calls reach the real tool", async () => {
  const warnings: string[] = [];
  const resolver = mcpToolResolver({ cwd: ROOT, warn: (m) => warnings.push(m) });
  try {
    const { registry } = await assembleTools(
      mcpLine("stdio", `'${STDIO} --odd-names'`),
      new Map(),
      resolver,
      { warn: (m) => warnings.push(m) },
    );
    const names = [...registry.keys()];
    for (const n of names) assert.match(n, SAFE);
    assert.ok(names.includes("ns_tool_slash"), "a valid name stays as it is");
    const slash = names.find((n) => /^ns_tool_slash_[0-9a-f]{8}$/.test(n));
    const long = names.find((n) => n.startsWith("long_x") && n.length === 64);
    assert.ok(slash && long, names.join(" "));
    assert.match(long!, /_[0-9a-f]{8}$/);
    assert.equal((await call(registry, slash!, {})).content, "called ns.tool/slash");
    assert.equal((await call(registry, "ns_tool_slash", {})).content, "called ns_tool_slash");
    assert.equal((await call(registry, long!, {})).content, `called ${LONG_TOOL_NAME}`);
    const def = registry.get(slash!)!.definition as {
      function: { name: string; description: string };
    };
    assert.equal(def.function.name, slash);
    assert.equal(def.function.description, "I am ns.tool/slash");
    assert.equal(warnings.length, 2, warnings.join("\n"));
    const said = (real: string, alias: string) =>
      warnings.filter((w) =>
        w.startsWith(
          `Tool "${real}" of mcp: stdio '${STDIO} --odd-names' is offered as "${alias}" (`,
        )
      ).length;
    assert.equal(said("ns.tool/slash", slash!), 1, warnings.join("\n"));
    assert.equal(said(LONG_TOOL_NAME, long!), 1, warnings.join("\n"));
  } finally {
    await resolver.close();
  }
});

Deno.test("llm ask (R96-6): the provider gets only valid function names; the chat records the alias called, the server the real name", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const alias = `ns_tool_slash_${
    createHash("sha256").update("ns.tool/slash").digest("hex").slice(0, 8)
  }`;
  srv.script({ toolCalls: [{ name: alias, arguments: {}, id: "c1" }] }, { text: "Done." });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "k" };
  const question = `mcp: stdio '${STDIO} --odd-names'\n\nuser:\n\nCall the slash tool`;
  const args = ["llm", "ask", "-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const r = await runScout([...args, "-o", "out.chat", question], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Done.\n");
  for (const req of srv.requests) {
    for (const t of req.body.tools as { function: { name: string } }[]) {
      assert.match(t.function.name, SAFE);
    }
  }
  assert.ok(r.stderr.includes(`Tool "ns.tool/slash" of mcp: stdio '`), r.stderr);
  assert.ok(r.stderr.includes(`' is offered as "${alias}"`), r.stderr);
  const chat = parse(await Deno.readTextFile(join(dir.path, "out.chat")));
  const fc = chat.find((m) => m.role === "function_call")!;
  assert.equal(JSON.parse(String(fc.content)).name, alias);
  const out = chat.find((m) => m.role === "function_call_output")!;
  assert.equal(JSON.parse(String(out.content)).content, "called ns.tool/slash");
});

/** The SDK test server over Streamable HTTP with SSE replies; its url. */
function httpServer(port = 0, extra: string[] = []) {
  return startHttpMcpServer(["--sse", ...extra], port);
}

const stop = stopHttpMcpServer;

Deno.test("mcp http (R96-5): a server that dies while its reply streams fails the call at once, naming the server; the next call reconnects", async () => {
  let server = await httpServer();
  const resolver = mcpToolResolver({ config: configWith("timeout 20 mcp") });
  try {
    const { registry } = await assembleTools(
      mcpLine(server.url, "crash", "echo"),
      new Map(),
      resolver,
    );
    assert.equal((await call(registry, "echo", { text: "before" })).content, "before");
    const t0 = performance.now();
    const out = await settled(call(registry, "crash", { after_ms: 500 }), 15_000);
    assert.notEqual(out, "late", "the call does not wait for the timeout");
    if (out === "late") return;
    assert.ok(performance.now() - t0 < 8000);
    assert.equal(out.error, "error");
    assert.match(
      JSON.parse(out.content).exception,
      new RegExp(
        `^MCP server "${server.url}": call of "crash" failed: the connection to the server was lost \\(SSE stream disconnected`,
      ),
    );
    await server.child.status;
    // the server comes back on its port: the next call reaches it
    server = await httpServer(Number(new URL(server.url).port));
    assert.equal((await call(registry, "echo", { text: "after" })).content, "after");
  } finally {
    await resolver.close();
    await stop(server.child);
  }
});

Deno.test("mcp http (R98-3): the client's standalone GET stream dropping (a proxy's idle timeout) does not fail a pending call: the SDK reconnects it", async () => {
  const server = await httpServer(0, ["--drop-get", "300"]);
  const resolver = mcpToolResolver({ config: configWith("timeout 20 mcp") });
  try {
    const { registry } = await assembleTools(mcpLine(server.url, "slow"), new Map(), resolver);
    const out = await settled(call(registry, "slow", { ms: 2500 }), 15_000);
    assert.notEqual(out, "late");
    if (out === "late") return;
    assert.equal(out.error, undefined, out.content);
    assert.equal(out.content, "slept 2500");
  } finally {
    await resolver.close();
    await stop(server.child);
  }
});
