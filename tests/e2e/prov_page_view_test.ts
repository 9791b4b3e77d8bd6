/**
 * How the provenance page reads in a real headless browser (chromium at
 * 1400×900 unless said, tests/support/browser_check.mjs): a large graph at a
 * readable size with zoom and a list that brings nodes into view (R127-3), a
 * selection that cannot be taken for failure (R127-4), long warnings that
 * stay inside the page, and what the header and a missing graph say (R127-6).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { mkJob, write } from "../provenance/support.ts";
import { browser, needBrowser } from "../support/browser.ts";
import { generateStore } from "../../bench/prov_store.ts";

type Box = { left: number; right: number; top: number; bottom: number };
interface Shape {
  node: string;
  sel: boolean;
  stroke: string;
  strokeWidth: string;
  fill: string;
  filter: string;
}
interface Measure {
  labelPx: number | null;
  header: string;
  noGraph: string | null;
  window: number;
  pageWidth: number;
  graph: Box;
  warnings: (Box & { scrollWidth: number; clientWidth: number })[];
  tables: Box[];
  shapes: Shape[];
}

/** `llm prov ROOT --html page.html` in `dir`; the page's file. */
async function page(dir: string, root: string, jobs: string): Promise<string> {
  const file = join(dir, "page.html");
  const r = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--html", file], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home") },
  });
  assert.equal(r.code, 0, r.stderr);
  return file;
}

Deno.test("prov --html R127-3: a 275-node graph opens readable, zooms, and a chosen row's node comes into view", async () => {
  needBrowser();
  await using dir = await tempDir();
  const store = await generateStore(join(dir.path, "store"), { scale: 0.03, seed: 1 });
  const file = await page(dir.path, store.root, store.jobsDir);
  // the first node (the leftmost) is far from the root the page opens on (the rightmost)
  const html = await Deno.readTextFile(file);
  const data = JSON.parse(/id="prov-data">(.*?)<\/script>/s.exec(html)![1]!);
  const b = await browser({
    kind: "page",
    file,
    measure: true,
    row: data.nodes[0].label,
    zoomIn: true,
  });
  assert.deepEqual(b.errors, []);
  assert.ok((b.svgNodes as number) > 200, `${b.svgNodes} nodes drawn`);
  const m = b.measure as Measure;
  // squeezed into the panel's width, the labels were 1-2 px tall
  assert.ok(m.labelPx !== null && m.labelPx >= 9, `labels ${m.labelPx} px tall`);
  assert.ok(m.pageWidth <= m.window, `the page is ${m.pageWidth} px wide`);
  const row = b.row as { before: boolean; after: boolean; selected: string };
  assert.equal(row.before, false, "the first node starts out of view");
  assert.equal(row.selected, "n0");
  assert.equal(row.after, true, "choosing its row scrolls it into view");
  assert.ok(Math.abs((b.zoomIn as number) - 1.25) < 0.01, `+ zoomed by ${b.zoomIn}`);
  assert.ok((b.wheelOut as number) < 0.9, `ctrl+wheel zoomed by ${b.wheelOut}`);
});

Deno.test("prov --html R127-4: the selected node has a halo and its own border, never a failed job's red border", async () => {
  needBrowser();
  await using dir = await tempDir();
  const job = "Boss/ask/Default_bad0bad000112233445566778899aabb.chat";
  mkJob(
    join(dir.path, "store", job),
    null,
    {
      "agent.chat": "user: go\n\nmeta: pt=3 tt=3 inference_id=x\n\nassistant: ok\n",
    },
    { workflow: "Boss", task_name: "ask", type: "chat", status: "error", messages: ["x"] },
    null,
  );
  write(join(dir.path, "s.chat"), `user: x\n\nmeta: job=${job}\n\nassistant: y\n`);
  const file = await page(dir.path, join(dir.path, "s.chat"), join(dir.path, "store"));
  // n0 the failed job, n1 the root chat (selected when the page opens)
  const b = await browser({ kind: "page", file, measure: true, click: "n0" });
  assert.deepEqual(b.errors, []);
  const open = (b.measure as Measure).shapes;
  const clicked = b.clickedShapes as Shape[];
  const [failed, root] = [open[0]!, open[1]!];
  assert.equal(failed.stroke, "rgb(198, 40, 40)", "a failed job's border is red");
  assert.ok(root.sel && !failed.sel, JSON.stringify(open));
  // the selected healthy root keeps the border it has unselected (before: #d33, 2 px)
  assert.deepEqual([root.stroke, root.strokeWidth], [clicked[1]!.stroke, clicked[1]!.strokeWidth]);
  assert.notEqual(root.stroke, failed.stroke);
  assert.match(root.filter, /drop-shadow/, "selection is a halo");
  assert.notEqual(root.fill, clicked[1]!.fill, "and a fill");
  assert.equal(clicked[1]!.filter, "none");
  // a selected failed job still shows its red border
  assert.ok(clicked[0]!.sel);
  assert.equal(clicked[0]!.stroke, "rgb(198, 40, 40)");
  assert.match(clicked[0]!.filter, /drop-shadow/);
});

Deno.test("prov --html R127-6: a long warning stays inside the page at 700 px and the middle panel at 1400 px; 1 node", async () => {
  needBrowser();
  await using dir = await tempDir();
  const missing = `Boss/ask/Default_${"a".repeat(150)}.chat`;
  write(join(dir.path, "s.chat"), `user: x\n\nmeta: job=${missing}\n\nassistant: y\n`);
  await Deno.mkdir(join(dir.path, "store"));
  const file = await page(dir.path, join(dir.path, "s.chat"), join(dir.path, "store"));
  for (const width of [700, 1400]) {
    const b = await browser({ kind: "page", file, measure: true, width });
    assert.deepEqual(b.errors, []);
    const m = b.measure as Measure;
    assert.match(m.header, / · 1 node$/);
    assert.equal(m.warnings.length, 1);
    assert.ok(m.pageWidth <= width, `${width}: the page is ${m.pageWidth} px wide`);
    for (const w of [...m.warnings, ...m.tables]) {
      assert.ok(w.right <= m.graph.right + 0.5, `${width}: ends at ${w.right} > ${m.graph.right}`);
    }
    for (const w of m.warnings) assert.ok(w.scrollWidth <= w.clientWidth, JSON.stringify(w));
  }
});

Deno.test("prov --html R127-6: over the page's limit the page says how many nodes, not 'Graphviz missing or'", async () => {
  await using dir = await tempDir();
  const store = await generateStore(join(dir.path, "store"), { scale: 0.05, seed: 1 });
  const html = await Deno.readTextFile(await page(dir.path, store.root, store.jobsDir));
  assert.match(
    html,
    /The graph is not drawn: \d+ nodes, over the page&#39;s limit of 400; use the list/,
  );
  assert.doesNotMatch(html, /<svg/);
});
