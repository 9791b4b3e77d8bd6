// A real headless browser for the page tests: Debian's chromium driven by
// playwright-core (tools/node_modules), run with Node (playwright's pipes to
// the browser are Node's). Reads one JSON job from argv[2], prints one JSON
// result. Jobs:
//   {"kind":"page","file":…,"click":"n4","screenshot":…}  open the page, click a node
//     (optional "width": the window's width in px, default 1400)
//   {"kind":"mermaid","text":…,"mermaidJs":…}              render a Mermaid chart
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

// playwright-core is a tool of the repo (tools/package.json), not a dependency
const tools = fileURLToPath(new URL("../../tools/package.json", import.meta.url));
const pw = await import(pathToFileURL(createRequire(tools).resolve("playwright-core")).href);
const chromium = pw.chromium ?? pw.default.chromium;

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
    if (job.click) {
      await page.locator(`#node-${job.click.slice(1)}`).click();
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
