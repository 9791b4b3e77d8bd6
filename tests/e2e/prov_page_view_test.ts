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
