/**
 * `kb register` keeps the file's path and reads it later (`kb list`, `kb
 * query`, a `kb:` line): a pipe (`<(…)`), a FIFO or a terminal, read once,
 * and `-` (stdin) are usage errors saying so, and nothing is registered
 * (R94-2). Run as a subprocess by a real bash, for `<(…)`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/cli.ts";
import { scoutBash, shellQuote } from "../support/scout_bash.ts";

const PARENTS = join(ROOT, "fixtures", "kb", "family", "parents");

Deno.test("R94-2: kb register refuses a pipe, a FIFO and '-' (exit 2, one line why), registering nothing", async () => {
  await using d = await tempDir();
  const r = await scoutBash(
    `scout kb register kb3 parents <(cat ${shellQuote(PARENTS)}); echo "pipe=$?"
     mkfifo fifo; scout kb register kb3 parents fifo; echo "fifo=$?"
     scout kb register kb3 parents - < ${shellQuote(PARENTS)}; echo "dash=$?"
     scout kb register kb3 parents ${shellQuote(PARENTS)} >/dev/null; echo "file=$?"
     scout kb list kb3; echo "list=$?"`,
    d.path,
    20,
  );
  assert.equal(
    r.stdout,
    "pipe=2\nfifo=2\ndash=2\nfile=0\nparents  Child (Alias) -> Parent (Alias)  [Type of parent]\nlist=0\n",
    r.stderr,
  );
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("scout-ai:"));
  assert.equal(lines.length, 3, r.stderr);
  assert.match(
    lines[0]!,
    /^scout-ai: Cannot register "\/dev\/fd\/\d+": it is a pipe or a terminal, read once; the knowledge base keeps the path and reads it later \(save it to a file first\)$/,
  );
  assert.match(lines[1]!, /^scout-ai: Cannot register "fifo": it is a pipe or a terminal/);
  assert.match(lines[2]!, /^scout-ai: Cannot register "-" \(stdin\): the knowledge base keeps/);
  assert.ok(!existsSync(join(d.path, "kb3", "fifo")));
});
