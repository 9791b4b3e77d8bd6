/**
 * The tree's indentation stops growing at depth 32 (R147-5): two
 * spaces a level made the output grow with the square of a chain's depth —
 * a 5,000-deep delegation chain printed 25 MB, a 30,000-deep dependency
 * chain 900 MB, where every other view is linear. Past the cap a line is
 * indented as at the cap and says its depth (`[depth N] `); shallower lines
 * are as before (the golden trees hold them).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { provenanceReport } from "../../src/provenance/report.ts";
import { renderTree } from "../../src/provenance/render_tree.ts";
import { mkJob, tmp, write } from "./support.ts";

/** The depth past which the indentation stops growing (`render_tree.ts`). */
const TREE_INDENT_DEPTH = 32;

/** A root chat naming J0, each job `Ji` depending on `Ji+1`, each with a log of one inference. */
function chain(dir: string, n: number): string {
  const job = (i: number) => join(dir, "jobs/Wf/t", `J${i}`);
  for (let i = 0; i < n; i++) {
    const log = `user: q\n\nmeta: pt=1 tt=${i + 1} inference_id=g${i}\n\nassistant: a\n`;
    mkJob(job(i), i + 1 < n ? [job(i + 1)] : [], { "agent.chat": log });
  }
  return write(join(dir, "root.chat"), "user: go\n\nmeta: job=Wf/t/J0\n");
}

Deno.test("a deep chain's tree grows linearly: past the cap, lines keep the cap's indent and say their depth", async () => {
  await using d = await tmp();
  const depth = 200;
  const root = chain(d.path, depth);
  const tree = renderTree(
    provenanceReport(root, { cwd: d.path, jobRoots: [join(d.path, "jobs")] }),
  );
  const lines = tree.trimEnd().split("\n");
  assert.equal(lines.length, depth + 1); // the root chat, then one line a job
  // each line at most the cap's indent, a depth mark and its label and tokens
  const perLine = 2 * TREE_INDENT_DEPTH + "[depth 200] ".length + 80;
  assert.ok(tree.length < (depth + 1) * perLine, `${tree.length} bytes for ${depth + 1} lines`);
  const indent = (l: string) => l.length - l.trimStart().length;
  // up to the cap: two spaces a level, as the spec draws it
  for (let k = 0; k <= TREE_INDENT_DEPTH; k++) {
    assert.equal(indent(lines[k]!), 2 * k, lines[k]);
    assert.ok(!lines[k]!.includes("[depth"), lines[k]);
  }
  assert.match(
    lines[TREE_INDENT_DEPTH]!,
    new RegExp(`^ {${2 * TREE_INDENT_DEPTH}}job \\S+ \\S+ J${TREE_INDENT_DEPTH - 1}$`),
  );
  // past it: the cap's indent, then the depth
  for (let k = TREE_INDENT_DEPTH + 1; k <= depth; k++) {
    const pad = " ".repeat(2 * TREE_INDENT_DEPTH);
    assert.ok(lines[k]!.startsWith(`${pad}[depth ${k}] job `), lines[k]);
    assert.ok(lines[k]!.endsWith(` J${k - 1}`), lines[k]);
  }
  assert.equal(
    lines[depth],
    `${" ".repeat(2 * TREE_INDENT_DEPTH)}[depth ${depth}] job total=${depth} prompt=1 J${
      depth - 1
    }`,
  );
});
