/**
 * MCP stdio servers that flood stdout without end (R88-1): one printing
 * non-JSON is given up on after a bound of unreadable lines, named with what
 * it printed, long before the timeout; one flooding readable notifications
 * no longer starves the start timeout nor SIGTERM in the Bun binary (its
 * pipe's chunks came back to back and the event loop never turned).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleTools } from "../../src/tools/assemble.ts";
import { mcpToolResolver } from "../../src/tools/mcp/resolver.ts";
import { emptyConfig, parseConfigText } from "../../src/config/store.ts";
import { BINARY, buildBinary, tempDir } from "../support/cli.ts";
import type { Message } from "../../src/chat/types.ts";

/** A chat whose `mcp:` line starts `server` (a path, no quoting needed). */
function chat(server: string): string {
  return `mcp: stdio ${server}\n\nuser: hi\n`;
}

/** A script printing `line` for ever. */
async function flooder(dir: string, line: string): Promise<string> {
  const path = join(dir, "flood.sh");
  await Deno.writeTextFile(path, `#!/bin/sh\nexec yes '${line}'\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

/** Runs the binary's `llm ask` on `chat`, sending SIGTERM after `termMs` when given. */
async function ask(
  dir: string,
  chatText: string,
  timeoutS: number,
  termMs?: number,
): Promise<{ code: number | null; signal: string | null; stderr: string; ms: number }> {
  const home = join(dir, "home");
  await Deno.mkdir(join(home, ".scout/etc"), { recursive: true });
  await Deno.writeTextFile(join(home, ".scout/etc/config"), `timeout ${timeoutS} mcp\n`);
  await Deno.writeTextFile(join(dir, "m.chat"), chatText);
  const t0 = performance.now();
  const child = new Deno.Command(BINARY, {
    args: ["llm", "ask", "-b", "openai", "-O", "url=http://127.0.0.1:1/v1", "-c", "m.chat"],
    cwd: dir,
    env: { HOME: home, NO_COLOR: "1", SCOUT_HOME: join(home, ".scout") },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const term = termMs === undefined ? undefined : setTimeout(() => child.kill("SIGTERM"), termMs);
  const kill = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const out = await child.output();
  clearTimeout(term);
  clearTimeout(kill);
  return {
    code: out.signal === null ? out.code : null,
    signal: out.signal,
    stderr: new TextDecoder().decode(out.stderr),
    ms: performance.now() - t0,
  };
}

Deno.test("mcp (R88-1): a server printing non-JSON for ever is given up on, named with its first line, before the timeout", async () => {
  await using dir = await tempDir();
  const config = emptyConfig();
  config.entries.push(...parseConfigText("timeout 60 mcp"));
  const warnings: string[] = [];
  const resolver = mcpToolResolver({ config, warn: (m) => warnings.push(m) });
  try {
    const server = await flooder(dir.path, `garbage ${"x".repeat(100)}`);
    const line: Message[] = [{ role: "mcp", content: `stdio ${server}` }, {
      role: "user",
      content: "hi",
    }];
    const t0 = performance.now();
    const { registry } = await assembleTools(line, new Map(), resolver);
    assert.ok(performance.now() - t0 < 20_000, "given up on long before the 60 s timeout");
    assert.equal(registry.size, 0);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^MCP server ".*flood\.sh": cannot start or connect: it printed 1000 lines that are not JSON-RPC messages before answering \(the first: "garbage x{72}…"\); the server was stopped \(its tools are not available\)$/,
    );
  } finally {
    await resolver.close();
  }
});

Deno.test("mcp (R88-1, binary): a flood of non-JSON ends the ask with one warning", async () => {
  await buildBinary();
  await using dir = await tempDir();
  const r = await ask(dir.path, chat(await flooder(dir.path, "garbage")), 60);
  assert.ok(r.ms < 25_000, `ended in ${r.ms} ms`);
  assert.equal(r.code, 1, r.stderr);
  const mcp = r.stderr.split("\n").filter((l) => l.includes("MCP server"));
  assert.equal(mcp.length, 1, r.stderr);
  assert.match(mcp[0]!, /not JSON-RPC messages .*\(the first: "garbage"\)/);
});

Deno.test("mcp (R88-1, binary): a flood of readable notifications is bounded by the timeout", async () => {
  await buildBinary();
  await using dir = await tempDir();
  const server = await flooder(dir.path, '{"jsonrpc":"2.0","method":"notifications/x"}');
  const r = await ask(dir.path, chat(server), 2);
  assert.ok(r.ms < 25_000, `ended in ${r.ms} ms`);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /MCP server ".*flood\.sh": cannot start or connect: .*timed out/i);
});

Deno.test("mcp (R88-1, binary): SIGTERM ends an ask whose server floods readable notifications", async () => {
  await buildBinary();
  await using dir = await tempDir();
  const server = await flooder(dir.path, '{"jsonrpc":"2.0","method":"notifications/x"}');
  const r = await ask(dir.path, chat(server), 60, 1500);
  assert.ok(r.ms < 15_000, `ended in ${r.ms} ms`);
  assert.notEqual(r.signal, "SIGKILL", "SIGTERM was enough");
});
