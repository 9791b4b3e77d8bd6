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
import { tempDir } from "../support/cli.ts";
import { scoutBash } from "../support/scout_bash.ts";

const WORKFLOW = `import { readFileSync } from "node:fs";
export default (api) => api.workflow("Reads", { tasks: {
  count: { type: "string", inputs: { data: api.input.file() },
    run: ({ data }) => "got:" + readFileSync(data, "utf8").trim() },
} });
`;

Deno.test("a pipe given to a file input is refused (exit 2, why); a file with the same text runs", async () => {
  await using d = await tempDir();
  mkdirSync(join(d.path, "wf", "Reads"), { recursive: true });
  writeFileSync(join(d.path, "wf", "Reads", "workflow.ts"), WORKFLOW);
  writeFileSync(join(d.path, "b.txt"), "bbb\n");
  const r = await scoutBash(
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
