/**
 * `pageSvg`, the graph of `llm prov --html`: drawn by the real Graphviz, and
 * when `dot` fails, its exit and first line — also when it fails before
 * reading a DOT text larger than a pipe holds (Deno's `spawnSync` with
 * `input` then returned neither: "failed (exit undefined)", CI of stop 56).
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bufferIo } from "../support/buffer_io.ts";
import { pageSvg } from "../../src/cli/llm_prov_views.ts";
import { tempDir } from "../support/cli.ts";

/** A DOT text of ~1 MB: a graph of 20 000 nodes. */
function bigDot(): string {
  const nodes = Array.from(
    { length: 20_000 },
    (_, i) => `  n${i} [label="node ${i} of a large graph"];`,
  );
  return `digraph big {\n${nodes.join("\n")}\n}\n`;
}

Deno.test("pageSvg: a dot that fails without reading a DOT text larger than a pipe: its exit and first line", async () => {
  await using d = await tempDir();
  const bin = join(d.path, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "dot"),
    "#!/bin/sh\necho 'Error: no memory' >&2\necho more >&2\nexit 4\n",
  );
  chmodSync(join(bin, "dot"), 0o755);
  const io = bufferIo({ env: { PATH: bin }, cwd: d.path });
  const r = pageSvg(bigDot(), io);
  assert.equal(r.svg, null);
  assert.equal(
    r.noGraph,
    "The graph is not drawn: Graphviz 'dot' failed (exit 4): Error: no memory",
  );
  assert.equal(
    io.stderrText(),
    "scout-ai: warning: Graphviz 'dot' failed (exit 4): Error: no memory: the page has no drawn graph\n",
  );
});

Deno.test("pageSvg: a dot that exits 0 drawing nothing says so; the real Graphviz draws the SVG", async () => {
  await using d = await tempDir();
  const bin = join(d.path, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "dot"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(bin, "dot"), 0o755);
  const none = pageSvg("digraph g { a -> b }", bufferIo({ env: { PATH: bin } }));
  assert.deepEqual(none, {
    svg: null,
    noGraph: "The graph is not drawn: Graphviz 'dot' drew nothing",
  });
  const io = bufferIo({ env: { PATH: Deno.env.get("PATH") } });
  const drawn = pageSvg('digraph g { a -> b [label="x"] }', io);
  assert.match(drawn.svg ?? "", /^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\n$/);
  assert.equal(io.stderrText(), "");
});
