/**
 * A task that returns a stream, through `workflow task` and `workflow mcp`
 * (real processes, a real job store): its content is the result, the job
 * done after; an interrupt mid-stream leaves no result and no temp file; a
 * `Map` fails the job naming the task (R126-3: all were saved as `{}`, done).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runScout, spawnScout, tempDir } from "../support/cli.ts";
import { mcpStdioSession, spawnWorkflowMcp } from "../support/mcp_stdio_lines.ts";

const G = `export default (api) => api.workflow("G", { tasks: {
  stream_seq: { type: "text", inputs: { n: api.input.integer({ description: "lines", default: 2 }) },
    run: ({ n }) => {
      let i = 0;
      return new ReadableStream({ pull(c) {
        if (i < n) c.enqueue(new TextEncoder().encode("line " + ++i + "\\n")); else c.close();
      } });
    } },
  endless: { type: "text",
    run: () => new ReadableStream({ async pull(c) {
      c.enqueue(new TextEncoder().encode("tick\\n"));
      await new Promise((r) => setTimeout(r, 50));
    } }) },
  as_map: { type: "json", run: () => new Map([["a", 1]]) },
} });
`;

async function gDir(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/G"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/G/workflow.ts"), G);
  return dir;
}

const envOf = (dir: string) => ({ SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" });

function info(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path + ".info", "utf8"));
}

function taskDir(dir: string, task: string): string {
  return join(dir, "home/var/jobs/G", task);
}

Deno.test("workflow task: a task returning a ReadableStream saves and prints its content (R126-3)", async () => {
  await using dir = await gDir();
  const r = await runScout(["workflow", "task", "G", "stream_seq", "--n", "4", "--print-path"], {
    cwd: dir.path,
    env: envOf(dir.path),
  });
  assert.equal(r.code, 0, r.stderr);
  const path = r.stdout.trim();
  assert.equal(readFileSync(path, "utf8"), "line 1\nline 2\nline 3\nline 4\n");
  assert.equal(info(path).status, "done");
  assert.deepEqual(
    readdirSync(taskDir(dir.path, "stream_seq")).filter((n) => n.startsWith(".")),
    [],
  );
  const shown = await runScout(["workflow", "task", "G", "stream_seq", "--n", "4"], {
    cwd: dir.path,
    env: envOf(dir.path),
  });
  assert.equal(shown.stdout, "line 1\nline 2\nline 3\nline 4\n");
});

Deno.test("workflow task: a task returning a Map fails naming the task and the Map, no result (R126-3)", async () => {
  await using dir = await gDir();
  const r = await runScout(["workflow", "task", "G", "as_map"], {
    cwd: dir.path,
    env: envOf(dir.path),
  });
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stderr, /Task "G\/as_map" returned a Map, which a "json" result file cannot hold/);
  const names = readdirSync(taskDir(dir.path, "as_map"));
  assert.deepEqual(names.filter((n) => !n.endsWith(".info")), []);
  assert.equal(info(join(taskDir(dir.path, "as_map"), names[0]!.slice(0, -5))).status, "error");
});

Deno.test("workflow mcp: a stream result is its content; a Map is a tool error (R126-3)", async () => {
  await using dir = await gDir();
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const child = spawnWorkflowMcp(dir.path, envOf(dir.path), ["G", "stream_seq", "as_map"]);
  const w = child.stdin.getWriter();
  await w.write(
    new TextEncoder().encode(
      mcpStdioSession(call(2, "stream_seq", { n: 3 }), call(3, "as_map", {})),
    ),
  );
  await w.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const replies = new Map(
    stdout.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m.result]),
  );
  assert.deepEqual(replies.get(2)?.content, [{ type: "text", text: "line 1\nline 2\nline 3\n" }]);
  assert.equal(replies.get(2)?.isError, undefined);
  assert.equal(replies.get(3)?.isError, true);
  assert.match(replies.get(3)?.content?.[0]?.text, /Task "G\/as_map" returned a Map/);
  assert.equal(out.code, 0);
});

Deno.test("SIGINT while a returned stream is consumed: aborted, no result, no temp file (R126-3)", async () => {
  await using dir = await gDir();
  const child = spawnScout(["workflow", "task", "G", "endless"], {
    cwd: dir.path,
    env: envOf(dir.path),
  });
  const tasks = taskDir(dir.path, "endless");
  const temps = () => existsSync(tasks) ? readdirSync(tasks).filter((n) => n.endsWith(".tmp")) : [];
  const t0 = Date.now();
  while (temps().length === 0) {
    if (Date.now() - t0 > 20_000) throw new Error("the stream's temp file never appeared");
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGINT");
  const status = await child.status;
  await child.stdout.cancel();
  await child.stderr.cancel();
  assert.equal(status.code, 130);
  assert.deepEqual(temps(), []);
  const path = join(tasks, "Default");
  assert.equal(existsSync(path), false);
  assert.equal(info(path).status, "aborted");
});
