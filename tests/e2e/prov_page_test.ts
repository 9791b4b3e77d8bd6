/**
 * `llm prov --html` and `--mermaid` in a real headless browser (Debian's
 * chromium driven by playwright-core under Node: tests/support/browser_check.mjs),
 * and `--dot` through real Graphviz, on a copy of the worked example whose
 * Critic is renamed to a hostile name (quotes, a tag, a newline, `-->`, an
 * entity) and whose log holds hostile text (`</script>`, an `onerror` image).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { mkJob, write } from "../provenance/support.ts";
import { browser, needBrowser } from "../support/browser.ts";

// a file name cannot hold "/", so "</script>" goes in the log's text (PAYLOAD)
const HOSTILE = 'Cr"it<b>\n-->ic&amp;';
const PAYLOAD = "<img src=x onerror=\"document.title='pwned'\"></script><script>alert(1)</script>";

async function hostileExample(dir: string): Promise<{ root: string; jobs: string }> {
  await new Deno.Command("cp", {
    args: ["-r", join(ROOT, "fixtures", "provenance", "example"), dir],
  }).output();
  const society = join(
    dir,
    "example/jobs/Planner/ask/Default_a1b2c3d4e5.chat.files/log/society",
  );
  await Deno.rename(join(society, "Critic"), join(society, HOSTILE));
  const log = join(society, HOSTILE, "default.chat");
  const text = await Deno.readTextFile(log);
  await Deno.writeTextFile(log, text.replace("The plan is sound", `The plan is sound ${PAYLOAD}`));
  return { root: join(dir, "example", "session.chat"), jobs: join(dir, "example", "jobs") };
}

/** The hostile example's page, written by `llm prov --html` into `dir`. */
async function hostilePage(dir: string) {
  const { root, jobs } = await hostileExample(dir);
  const page = join(dir, "report.html");
  const r = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--html", page], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home") },
  });
  assert.equal(r.code, 0, r.stderr);
  return { page, r };
}

Deno.test("prov --html: one self-contained page; clicking a node shows its messages as text", async () => {
  needBrowser();
  await using dir = await tempDir();
  const { page, r } = await hostilePage(dir.path);
  assert.equal(r.stdout, "", "--html alone prints no tree");
  const html = await Deno.readTextFile(page);
  // self-contained: no external reference, and the hostile text never closes the script
  assert.doesNotMatch(html, /(src|href)="?(https?:)?\/\//);
  assert.equal(html.split("</script>").length - 1, 2, "only the page's own two scripts close");
  // the Critic's log is the 5th node in flow order (4 jobs first, then chats by path)
  const shot = join(dir.path, "page.png");
  const b = await browser({
    kind: "page",
    file: page,
    click: "n4",
    screenshot: shot,
    filter: "it<",
  });
  assert.deepEqual(b.errors, []);
  assert.equal(b.rows, 6);
  assert.equal(b.svgNodes, 6);
  // the newline of the name shows escaped, as in every view
  assert.equal(b.title, 'Cr"it<b>\\n-->ic&amp; · default');
  assert.ok(String(b.messages).includes(`The plan is sound ${PAYLOAD}`), String(b.messages));
  assert.equal(b.filtered, 1);
  assert.equal(b.tables, 1);
  assert.ok(Deno.statSync(shot).size > 10_000, "a screenshot was taken");
  // it opens on the root, whose first message is its first line (no empty `user:` before it)
  assert.equal(b.openTitle, "session.chat");
  const first = (b.openMessages as string[])[0]!;
  assert.match(first, /^user:\s*Plan the analysis\s*$/, JSON.stringify(b.openMessages));
});

Deno.test("prov --html R87-4: a failed job's panel shows its status and the .info message's first line", async () => {
  needBrowser();
  await using dir = await tempDir();
  const job = "Boss/ask/Default_bad0bad000112233445566778899aabb.chat";
  mkJob(join(dir.path, "store", job), null, {
    "agent.chat": "user: go\n\nmeta: pt=3 tt=3 inference_id=x\n\nassistant: ok\n",
  }, {
    workflow: "Boss",
    task_name: "ask",
    type: "chat",
    status: "error",
    messages: ["RuntimeError: <b>refused</b>\n  at line two"],
  }, null);
  write(join(dir.path, "s.chat"), `user: x\n\nmeta: job=${job}\n\nassistant: y\n`);
  const page = join(dir.path, "report.html");
  const r = await runMain(
    ["llm", "prov", "s.chat", "-J", join(dir.path, "store"), "--html", page],
    {
      cwd: dir.path,
      env: { SCOUT_HOME: join(dir.path, "home") },
    },
  );
  assert.equal(r.code, 0, r.stderr);
  const b = await browser({ kind: "page", file: page, click: "n0" });
  assert.deepEqual(b.errors, []);
  assert.equal(b.title, "Boss/ask bad0bad0 [error]");
  assert.deepEqual(b.status, ["status: error — RuntimeError: <b>refused</b>"]);
});

Deno.test("prov --html: in a window 500 px wide the panels stack, each as wide as the window", async () => {
  needBrowser();
  await using dir = await tempDir();
  const { page } = await hostilePage(dir.path);
  const b = await browser({ kind: "page", file: page, click: "n4", width: 500 });
  assert.deepEqual(b.errors, []);
  type Box = { x: number; y: number; width: number; height: number };
  const { side, graph, detail } = b.boxes as { side: Box; graph: Box; detail: Box };
  for (const [name, box] of Object.entries({ side, graph, detail })) {
    assert.ok(box.width >= 480, `${name} is ${box.width} px wide`);
  }
  assert.ok(side.y < graph.y && graph.y < detail.y, JSON.stringify(b.boxes));
  assert.match(String(b.title), /· default$/, "a node can still be clicked");
});

Deno.test("prov --mermaid: hostile labels render in Mermaid as written; --dot is valid for Graphviz", async () => {
  needBrowser();
  await using dir = await tempDir();
  const { root, jobs } = await hostileExample(dir.path);
  const m = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--mermaid"], {
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home") },
  });
  assert.equal(m.code, 0, m.stderr);
  assert.match(m.stdout, /^flowchart LR\n/);
  assert.doesNotMatch(m.stdout, /<b>|"it|&amp;/, "markup characters are entity codes");
  const b = await browser({
    kind: "mermaid",
    text: m.stdout,
    mermaidJs: join(ROOT, "tools", "node_modules", "mermaid", "dist", "mermaid.min.js"),
  });
  const result = b.result as { ok: boolean; error?: string; nodes: number; labels: string[] };
  assert.ok(result.ok, result.error);
  assert.equal(result.nodes, 6);
  assert.ok(
    result.labels.some((l) => l.includes('Cr"it<b>') && l.includes("-->ic&amp;")),
    JSON.stringify(result.labels),
  );
  const dot = await runMain(["llm", "prov", root, "--jobs-dir", jobs, "--dot", "-"], {
    cwd: dir.path,
    env: { SCOUT_HOME: join(dir.path, "home") },
  });
  const svg = await new Deno.Command("dot", { args: ["-Tsvg"], stdin: "piped", stdout: "piped" })
    .spawn();
  const w = svg.stdin.getWriter();
  await w.write(new TextEncoder().encode(dot.stdout));
  await w.close();
  const out = await svg.output();
  assert.equal(out.code, 0);
  assert.match(new TextDecoder().decode(out.stdout), /Cr&quot;it&lt;b&gt;/);
});
