/**
 * An exec export (run in memory, no result file) that returns a stream shows
 * the stream's content, and one returning a `Map` fails naming the task —
 * through a chat's `exec_task:` (`chat compile`) and an MCP tool call
 * (`workflow mcp`), from source and from the built binary, a user
 * workflow.ts in a temp dir (R126-3 for exec: both showed as `{}`).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, type CliResult, runBinary, runScout, tempDir } from "../support/cli.ts";
import { mcpStdioSession } from "../support/mcp_stdio_lines.ts";

const USER_WORKFLOW = `import type { WorkflowApi } from "scout-ai/does-not-need-to-exist";
import { Readable } from "node:stream";

export default (api: WorkflowApi) =>
  api.workflow("Execs", {
    exports: { exec: ["lines", "nodeLines", "asMap"] },
    tasks: {
      lines: {
        type: "text",
        inputs: { n: api.input.integer({ default: 2 }) },
        run: ({ n }) => {
          let i = 0;
          return new ReadableStream({
            pull(c) {
              if (i < (n as number)) c.enqueue(new TextEncoder().encode("line " + ++i + "\\n"));
              else c.close();
            },
          });
        },
      },
      nodeLines: { type: "text", run: () => Readable.from(["a\\n", "b\\n"]) },
      asMap: { type: "json", run: () => new Map([["a", 1]]) },
    },
  });
`;

type Runner = (
  args: string[],
  opts: { cwd: string; env: Record<string, string>; stdin?: string },
) => Promise<CliResult>;

const RUNNERS: [string, Runner][] = [["source", runScout], ["binary", runBinary]];

async function execsDir(): Promise<{ path: string } & AsyncDisposable> {
  const d = await tempDir();
  mkdirSync(join(d.path, "workflows", "Execs"), { recursive: true });
  writeFileSync(join(d.path, "workflows", "Execs", "workflow.ts"), USER_WORKFLOW);
  writeFileSync(
    join(d.path, "streams.chat"),
    "exec_task: Execs lines n=3\n\nexec_task: Execs nodeLines\n",
  );
  writeFileSync(join(d.path, "map.chat"), "exec_task: Execs asMap\n");
  return d;
}

const envOf = (dir: string, who: string) => ({
  SCOUT_HOME: join(dir, who, "home"),
  HOME: join(dir, who),
  NO_COLOR: "1",
});

Deno.test("exec_task of an exec export: a stream shows its content, a Map fails naming the task, source and binary (R126-3)", async () => {
  await buildBinary();
  await using d = await execsDir();
  for (const [who, run] of RUNNERS) {
    const env = envOf(d.path, who);
    const ok = await run(["chat", "compile", "streams.chat", "--json"], { cwd: d.path, env });
    assert.equal(ok.code, 0, `${who}: ${ok.stderr}`);
    assert.deepEqual(JSON.parse(ok.stdout), [
      { role: "user", content: "line 1\nline 2\nline 3\n" },
      { role: "user", content: "a\nb\n" },
    ], who);
    const bad = await run(["chat", "compile", "map.chat"], { cwd: d.path, env });
    assert.equal(bad.code, 1, `${who}: ${bad.stdout}`);
    assert.match(
      bad.stderr,
      /Task "Execs\/asMap" returned a Map, which a "json" result file cannot hold/,
      who,
    );
  }
});

Deno.test("workflow mcp, exec exports: a stream is the tool's content, a Map a tool error naming the task, source and binary (R126-3)", async () => {
  await buildBinary();
  await using d = await execsDir();
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const session = mcpStdioSession(call(2, "lines", { n: 2 }), call(3, "asMap", {}));
  for (const [who, run] of RUNNERS) {
    const env = envOf(d.path, who);
    const r = await run(["workflow", "mcp", "Execs"], { cwd: d.path, env, stdin: session });
    assert.equal(r.code, 0, `${who}: ${r.stderr}`);
    const replies = new Map(
      r.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m.result]),
    );
    assert.deepEqual(replies.get(2)?.content, [{ type: "text", text: "line 1\nline 2\n" }], who);
    assert.equal(replies.get(2)?.isError, undefined, who);
    assert.equal(replies.get(3)?.isError, true, who);
    assert.match(
      replies.get(3)?.content?.[0]?.text,
      /Task "Execs\/asMap" returned a Map, which a "json" result file cannot hold/,
      who,
    );
  }
});
