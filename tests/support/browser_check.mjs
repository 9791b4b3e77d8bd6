// A real headless browser for the page tests: Debian's chromium driven by
// playwright-core (tools/node_modules), run with Node (playwright's pipes to
// the browser are Node's). Reads one JSON job from argv[2], prints one JSON
// result. Jobs:
//   {"kind":"page","file":…,"click":"n4","screenshot":…}  open the page, click a node
//     (optional "width": the window's width in px, default 1400; "measure": true adds
//     out.measure (label sizes, overflow, header, node strokes); "row": the label of a list
//     row to choose, "zoomIn": press the + button, then ctrl+wheel one notch out — each
//     reported after)
//   {"kind":"mermaid","text":…,"mermaidJs":…}              render a Mermaid chart
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

// playwright-core is a tool of the repo (tools/package.json), not a dependency
const tools = fileURLToPath(new URL("../../tools/package.json", import.meta.url));
const pw = await import(pathToFileURL(createRequire(tools).resolve("playwright-core")).href);
const chromium = pw.chromium ?? pw.default.chromium;

/** In the page: what a reader sees of the graph (label sizes, overflow, node outlines). */
function measure() {
  const texts = [...document.querySelectorAll("g.node text")];
  const heights = texts.map((t) => t.getBoundingClientRect().height);
  const box = (e) => e && e.getBoundingClientRect().toJSON();
  return {
    // the smallest label as drawn (a 10 pt label at its natural size is ~15 px tall)
    labelPx: heights.length ? Math.min(...heights) : null,
    header: document.querySelector("header .totals").textContent,
    noGraph: document.querySelector("#graph > p")?.textContent ?? null,
    window: innerWidth,
    pageWidth: document.documentElement.scrollWidth,
    graph: box(document.getElementById("graph")),
    warnings: [...document.querySelectorAll(".warn")].map((w) => ({
      ...box(w),
      scrollWidth: w.scrollWidth,
      clientWidth: w.clientWidth,
    })),
    tables: [...document.querySelectorAll("#tables table")].map((t) => box(t.parentElement)),
    shapes: [...document.querySelectorAll("g.node")].map((g) => {
      const shape = getComputedStyle(g.querySelector("path, polygon"));
      return {
        node: g.querySelector("title").textContent,
        sel: g.classList.contains("sel"),
        stroke: shape.stroke,
        strokeWidth: shape.strokeWidth,
        fill: shape.fill,
        filter: getComputedStyle(g).filter,
      };
    }),
  };
}

/** In the page: whether node `i` lies wholly inside the graph's visible box. */
function selInView(i) {
  const g = document.getElementById("node-" + i).getBoundingClientRect();
  const v = document.getElementById("gbox") ?? document.getElementById("graph");
  const r = v.getBoundingClientRect();
  return g.left >= r.left && g.top >= r.top && g.right <= r.left + v.clientWidth &&
    g.bottom <= r.top + v.clientHeight;
}

const job = JSON.parse(process.argv[2]);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const out = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: job.width ?? 1400, height: 900 } });
  page.on("pageerror", (e) => out.errors.push(String(e)));
  page.on("requestfailed", (r) => out.errors.push(`request failed: ${r.url()}`));
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) {
      out.errors.push(`network request: ${r.url()}`);
    }
  });
  if (job.kind === "page") {
    await page.goto("file://" + job.file);
    await page.waitForSelector("#list .row");
    out.rows = await page.locator("#list .row").count();
    out.svgNodes = await page.locator("g.node").count();
    // what the page opens on, and where its three panels are
    out.openTitle = await page.locator("#detail h2").textContent();
    out.openMessages = await page.locator("#messages .msg").allInnerTexts();
    out.boxes = {};
    for (const id of ["side", "graph", "detail"]) {
      out.boxes[id] = await page.locator(`#${id}`).boundingBox();
    }
    if (job.measure) out.measure = await page.evaluate(measure);
    if (job.row) {
      const row = page.locator("#list .row", { hasText: job.row }).first();
      const i = await row.getAttribute("data-i");
      out.row = { before: await page.evaluate(selInView, i) };
      await row.click();
      out.row.selected = await page.locator("g.node.sel title").textContent();
      out.row.after = await page.evaluate(selInView, i);
    }
    if (job.zoomIn) {
      const w = () =>
        page.evaluate(() => document.querySelector("#gbox svg").getBoundingClientRect().width);
      const before = await w();
      await page.click("#zin");
      out.zoomIn = (await w()) / before;
      const mid = await w();
      await page.locator("#gbox").hover();
      await page.keyboard.down("Control");
      await page.mouse.wheel(0, 100); // one notch out
      await page.keyboard.up("Control");
      out.wheelOut = (await w()) / mid;
    }
    if (job.click) {
      await page.locator(`#node-${job.click.slice(1)}`).click();
      if (job.measure) out.clickedShapes = (await page.evaluate(measure)).shapes;
      out.title = await page.locator("#detail h2").textContent();
      out.messages = await page.locator("#messages").innerText();
      out.status = await page.locator("#detail .status").allInnerTexts();
      out.selectedRow = await page.locator("#list .row.sel").textContent();
    }
    if (job.filter !== undefined) {
      await page.fill("#filter", job.filter);
      out.filtered = await page.locator("#list .row").count();
    }
    out.tables = await page.locator("#tables table").count();
    if (job.screenshot) await page.screenshot({ path: job.screenshot });
  } else if (job.kind === "mermaid") {
    await page.setContent("<!DOCTYPE html><html><body><div id=out></div></body></html>");
    await page.addScriptTag({ path: job.mermaidJs });
    out.result = await page.evaluate(async (text) => {
      try {
        globalThis.mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
        const { svg } = await globalThis.mermaid.render("chart", text);
        document.getElementById("out").innerHTML = svg;
        return {
          ok: true,
          nodes: document.querySelectorAll("#out g.node").length,
          labels: [...document.querySelectorAll("#out g.node")].map((n) => n.textContent),
          scripts: document.querySelectorAll("#out script").length,
        };
      } catch (e) {
        return { ok: false, error: String(e && e.message || e) };
      }
    }, job.text);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
