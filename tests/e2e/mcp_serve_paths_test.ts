/**
 * A string a client gives `workflow mcp` that names a special file is not
 * read to name the job (R115-1, the file system a client reaches): the job
 * digest hashed any existing file a string named, so `/dev/zero` (never
 * ends) or a FIFO without a writer (blocks on open) stalled the server for
 * every client. The server runs under a deadline; it answers both calls and
 * a following one. The same digest drained a `file` input given on the
 * command line as `<(…)` before the task could read it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnScout, tempDir } from "../support/cli.ts";
import { mcpStdioSession } from "../support/mcp_stdio_lines.ts";
import { sh } from "../support/bash.ts";

const ECHO = `import { readFileSync } from "node:fs";
export default (api) => api.workflow("Echo", { tasks: {
  echo: { type: "string", inputs: { text: api.input.string({ description: "t" }) },
    run: ({ text }) => "got " + text },
  read: { type: "string", inputs: { f: api.input.file({ description: "f" }) },
    run: ({ f }) => "read[" + readFileSync(f, "utf8") + "]" },
} });
`;

async function echoDir(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir();
  await Deno.mkdir(join(dir.path, "workflows/Echo"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "workflows/Echo/workflow.ts"), ECHO);
  return dir;
}

Deno.test("workflow mcp: a string argument naming /dev/zero or a FIFO is not read to name the job; every call is answered (R115-1)", async () => {
  await using dir = await echoDir();
  const fifo = join(dir.path, "pipe");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(made.code, 0, "mkfifo");
  const call = (id: number, text: string) => ({
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text } },
  });
  const child = spawnScout(["workflow", "mcp", "Echo"], {
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home") },
    stdin: "piped",
    signal: AbortSignal.timeout(30_000), // a stalled server is killed: its replies are missing
  });
  const w = child.stdin.getWriter();
  await w.write(
    new TextEncoder().encode(
      mcpStdioSession(call(2, fifo), call(3, "/dev/zero"), call(4, "plain")),
    ),
  );
  await w.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const replies = new Map(
    stdout.trim().split("\n").filter((l) => l).map((l) => JSON.parse(l)).map((m) => [m.id, m]),
  );
  const text = (id: number) => replies.get(id)?.result?.content?.[0]?.text;
  assert.equal(text(2), `got ${fifo}`, stdout + new TextDecoder().decode(out.stderr));
  assert.equal(text(3), "got /dev/zero");
  assert.equal(text(4), "got plain");
  assert.equal(out.code, 0);
});

Deno.test("workflow task: a file input given as <(…) is refused, exit 2: its path is kept and read later, a pipe read once (1dc6161)", async () => {
  await using dir = await echoDir();
  const r = await sh("source", "scout workflow task Echo read --f <(printf hello)", {
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home") },
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /Input --f takes a file path, .*is a pipe, read once; save it to a file first/,
  );
});
