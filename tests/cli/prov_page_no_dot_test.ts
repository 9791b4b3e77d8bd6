/**
 * `llm prov --html` when Graphviz cannot draw the graph (R127-6): the page
 * and the warning say why — `dot` not on PATH, or `dot` failing with what it
 * said — and the page still has its list; the exit is 0. The real CLI in a
 * subprocess, its PATH a directory of the test's own.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";

const SOCIETY = join(ROOT, "fixtures", "provenance", "society");

/** `llm prov --html` of the society fixture with `PATH` = `bin`: the page and stderr. */
async function page(dir: string, bin: string) {
  const out = join(dir, "page.html");
  const r = await runScout(
    ["llm", "prov", join(SOCIETY, "plan.chat"), "--jobs-dir", join(SOCIETY, "jobs"), "--html", out],
    { env: { PATH: bin, NO_COLOR: "1", SCOUT_HOME: join(dir, "home") } },
  );
  assert.equal(r.code, 0, r.stderr);
  return { html: readFileSync(out, "utf8"), stderr: r.stderr };
}

Deno.test("prov --html without Graphviz on PATH: the page and the warning say it is not available", async () => {
  await using d = await tempDir();
  const bin = join(d.path, "bin");
  mkdirSync(bin);
  const { html, stderr } = await page(d.path, bin);
  assert.match(stderr, /Graphviz 'dot' is not available: the page has no drawn graph\n/);
  assert.match(
    html,
    /<p>The graph is not drawn: Graphviz &#39;dot&#39; is not available; use the list\.<\/p>/,
  );
  assert.doesNotMatch(html, /<svg/);
});

Deno.test("prov --html with a dot that fails: the page and the warning give its exit and first line, not 'not available'", async () => {
  await using d = await tempDir();
  const bin = join(d.path, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "dot"),
    "#!/bin/sh\necho 'Error: trouble in line 3' >&2\necho 'more' >&2\nexit 3\n",
  );
  chmodSync(join(bin, "dot"), 0o755);
  const { html, stderr } = await page(d.path, bin);
  assert.match(
    stderr,
    /Graphviz 'dot' failed \(exit 3\): Error: trouble in line 3: the page has no drawn graph\n/,
  );
  assert.doesNotMatch(stderr, /not available/);
  assert.match(
    html,
    /The graph is not drawn: Graphviz &#39;dot&#39; failed \(exit 3\): Error: trouble in line 3; use the list\./,
  );
});
