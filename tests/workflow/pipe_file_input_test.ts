/**
 * A `file`, `path` or `folder` input keeps its path: the job is named by the
 * file's content and the task reads it later. A pipe (`<(…)`, a FIFO) is read
 * once, so it is refused as such an input (exit 2, one line why), as `kb
 * register` refuses one: the job digest no longer reads special files (a
 * device or FIFO named by a `workflow mcp` client stalled the server), which
 * named every `<(…)` job by the path `/dev/fd/63` — the second run with other
 * content loaded the first run's result; before that, the digest drained the
 * pipe and the task read nothing. Run by a real bash, for `<(…)`.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, SCOUT_SOURCE_ARGS, tempDir } from "../support/cli.ts";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

const WORKFLOW = `import { readFileSync } from "node:fs";
export default (api) => api.workflow("Reads", { tasks: {
  count: { type: "string", inputs: { data: api.input.file() },
    run: ({ data }) => "got:" + readFileSync(data, "utf8").trim() },
} });
`;

async function sh(script: string, cwd: string) {
  // a FIFO nobody writes would keep a read waiting for ever: bounded (exit 124)
  const fn = `scout() { timeout -s KILL 30 ${
    [DENO, ...SCOUT_SOURCE_ARGS].map(quote).join(" ")
  } "$@"; }\n`;
  const out = await new Deno.Command("bash", {
    args: ["-c", fn + script],
    cwd,
    env: { NO_COLOR: "1", SCOUT_HOME: join(cwd, "home"), PATH: Deno.env.get("PATH") ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("a pipe given to a file input is refused (exit 2, why); a file with the same text runs", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "wf", "Reads"), { recursive: true });
  writeFileSync(join(d.path, "wf", "Reads", "workflow.ts"), WORKFLOW);
  writeFileSync(join(d.path, "b.txt"), "bbb\n");
  const r = await sh(
    `scout workflow task wf/Reads count --data <(echo aaa); echo "pipe=$?"
     mkfifo fifo; scout workflow task wf/Reads count --data fifo; echo "fifo=$?"
     scout workflow task wf/Reads count --data b.txt; echo "file=$?"`,
    d.path,
  );
  // before: pipe=0 and fifo=124 (the task or the digest waited on the FIFO); and a
  // second <(echo bbb) printed "got:aaa", the first run's result under the same name
  assert.equal(r.stdout, "pipe=2\nfifo=2\ngot:bbb\nfile=0\n", r.stderr);
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("scout-ai:"));
  assert.equal(lines.length, 2, r.stderr);
  assert.match(
    lines[0]!,
    /^scout-ai: Input --data takes a file path, which the job keeps and its task reads later: "\/dev\/fd\/\d+" is a pipe, read once; save it to a file first$/,
  );
  assert.match(lines[1]!, /"fifo" is a pipe, read once; save it to a file first$/);
});
