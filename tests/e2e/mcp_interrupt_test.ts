/**
 * An interrupted ask ends its stdio MCP servers as process_transport.ts
 * says — stdin closed, SIGTERM, a short grace, SIGKILL last — so a server
 * that runs jobs records them (R91-5): `scout-ai workflow mcp` given SIGTERM
 * records its running job `aborted`; a SIGKILL at once left it `start`.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, spawnScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const SLOW = `export default (api) => api.workflow("SlowMcp", { tasks: { slow: { type: "string",
  inputs: { ms: api.input.integer({ default: 1000, description: "ms" }) },
  run: async ({ ms }) => { await new Promise((r) => setTimeout(r, ms)); return "slept " + ms; } } } });
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `.info` of the SlowMcp/slow job under `home`, or null while there is none. */
function slowJobInfo(home: string): { status?: string; messages?: string[] } | null {
  const jobs = join(home, "var/jobs/SlowMcp/slow");
  try {
    const f = readdirSync(jobs).find((n) => n.endsWith(".info"));
    return f === undefined ? null : JSON.parse(readFileSync(join(jobs, f), "utf8"));
  } catch {
    return null;
  }
}

Deno.test("llm ask: SIGINT during a call to a stdio workflow mcp server ends the server gently: its job recorded aborted, not left start (R91-5)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(join(t.path, "workflows/SlowMcp"), { recursive: true });
  writeFileSync(join(t.path, "workflows/SlowMcp/workflow.ts"), SLOW);
  const bin = join(t.path, "bin");
  mkdirSync(bin);
  const quoted = [DENO, ...SCOUT_SOURCE_ARGS].map((a) => `'${a}'`).join(" ");
  writeFileSync(join(bin, "scout"), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  await using srv = await startProviderServer({
    script: [{ toolCalls: [{ name: "slow", arguments: { ms: 6000 }, id: "c1" }] }, { text: "x" }],
  });
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const chat = "mcp: stdio 'scout workflow mcp SlowMcp slow'\n\nuser:\n\nsleep";
  const child = spawnScout(["llm", "ask", ...flags, "-o", "s.chat", chat], {
    cwd: t.path,
    env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", PATH: `${bin}:${Deno.env.get("PATH") ?? ""}` },
  });
  const info = () => slowJobInfo(home);
  const deadline = Date.now() + 60_000;
  while (info()?.status !== "start" && Date.now() < deadline) await sleep(50);
  await sleep(1000);
  const signalled = Date.now();
  child.kill("SIGINT");
  const out = await child.output();
  const took = Date.now() - signalled;
  assert.equal(out.code, 130, new TextDecoder().decode(out.stderr));
  assert.ok(took < 5_000, `exited ${took} ms after the signal`);
  await sleep(500);
  assert.equal(info()?.status, "aborted", JSON.stringify(info()));
  // by the SIGTERM, by the end of its stdin if the server reads that first, or by the
  // cancellation the client sends for its call (R96-3)
  assert.match(
    info()?.messages?.[0] ?? "",
    /^Aborted: interrupted by (SIGTERM|the end of its MCP client|the cancellation of every call waiting on it)$/,
  );
});

Deno.test("workflow mcp over stdio: a call the client cancels before closing stdin leaves its job recorded aborted, not start (R91-5)", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(join(t.path, "workflows/SlowMcp"), { recursive: true });
  writeFileSync(join(t.path, "workflows/SlowMcp/workflow.ts"), SLOW);
  const child = spawnScout(["workflow", "mcp", "SlowMcp", "slow"], {
    cwd: t.path,
    env: { SCOUT_HOME: home },
    stdin: "piped",
    stdout: "null",
  });
  const send = (m: Record<string, unknown>) =>
    new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
  const w = child.stdin.getWriter();
  await w.write(send({
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  }));
  await w.write(send({ method: "notifications/initialized" }));
  await w.write(
    send({ id: 2, method: "tools/call", params: { name: "slow", arguments: { ms: 8000 } } }),
  );
  const info = () => slowJobInfo(home);
  const deadline = Date.now() + 60_000;
  while (info()?.status !== "start" && Date.now() < deadline) await sleep(50);
  await w.write(send({ method: "notifications/cancelled", params: { requestId: 2 } }));
  await w.close();
  const out = await child.output();
  assert.equal(
    info()?.status,
    "aborted",
    `${JSON.stringify(info())} ${new TextDecoder().decode(out.stderr)}`,
  );
});
