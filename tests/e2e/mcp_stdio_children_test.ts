/**
 * What the README and `workflow mcp --help` say of a task's child processes
 * over stdio (R98-2): fd 1 cannot be redirected from JavaScript, so a child
 * that inherits stdout writes into the MCP stream; one given
 * `stdio: ["ignore", 2, 2]` writes to stderr and the stream stays clean.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScout, tempDir } from "../support/cli.ts";
import { mcpStdioSession } from "../support/mcp_stdio_lines.ts";

const WF = `import { spawnSync } from "node:child_process";
export default (api) => api.workflow("K", { tasks: {
  kid: { type: "string", run: () => {
    spawnSync("echo", ["from kid"], { stdio: ["ignore", 2, 2] }); return "ok"; } },
  leak: { type: "string", run: () => {
    spawnSync("echo", ["from leak"], { stdio: "inherit" }); return "ok"; } },
} });
`;

function session(name: string): string {
  return mcpStdioSession({ id: 2, method: "tools/call", params: { name, arguments: {} } });
}

Deno.test("workflow mcp over stdio: a child given stdio ['ignore', 2, 2] prints to stderr, the stream stays clean; one inheriting stdout writes into the stream, as documented (R98-2)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/K"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/K/workflow.ts"), WF);
  const env = { SCOUT_HOME: join(dir.path, "home") };
  const kid = await runScout(["workflow", "mcp", "K"], {
    stdin: session("kid"),
    env,
    cwd: dir.path,
  });
  assert.equal(kid.code, 0, kid.stderr);
  const replies = kid.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(replies.map((m) => m.id), [1, 2]);
  assert.match(kid.stderr, /from kid/);
  const leak = await runScout(["workflow", "mcp", "K"], {
    stdin: session("leak"),
    env,
    cwd: dir.path,
  });
  assert.ok(leak.stdout.split("\n").includes("from leak"), leak.stdout);
});
