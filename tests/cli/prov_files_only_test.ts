/**
 * `llm prov` with only files to write (--html, --plot, --dot FILE) prints
 * no tree, and `-e` then starts stdout with its report, not an empty line;
 * the help says so, and that prov's short letters are Scout's (R94-8, R94-7).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

const EXAMPLE = join(ROOT, "fixtures", "provenance", "example");

Deno.test("llm prov --html F -e / --dot F -e: stdout starts with the evidence report (R94-8)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" };
  for (const file of [["--html", "h.html"], ["--dot", "g.dot"]]) {
    const r = await runMain(
      ["llm", "prov", join(EXAMPLE, "session.chat"), "-J", join(EXAMPLE, "jobs"), ...file, "-e"],
      { env, cwd: d.path },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout.startsWith("Direct inference events\n"),
      JSON.stringify(r.stdout.slice(0, 40)),
    );
  }
  // after a view, the report is still set apart by an empty line
  const flow = await runMain(
    ["llm", "prov", join(EXAMPLE, "session.chat"), "-J", join(EXAMPLE, "jobs"), "--flow", "-e"],
    { env, cwd: d.path },
  );
  assert.match(flow.stdout, /[^\n]\n\nDirect inference events\n/);
});

Deno.test("llm prov --help: --plot/--html write files and print no tree; the letters are Scout's (R94-8, R94-7)", async () => {
  const r = await runMain(["llm", "prov", "--help"], { env: { NO_COLOR: "1" } });
  assert.equal(r.code, 0);
  const text = r.stdout.replace(/\s+/g, " ");
  assert.match(text, /--dot FILE, --plot and --html only write files: no tree prints/);
  assert.match(text, /The short letters \([^)]*\) are Scout's \(Ruby\) prov flags/);
});
