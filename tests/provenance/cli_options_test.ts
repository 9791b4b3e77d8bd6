/**
 * `scout-ai llm prov`'s options, checked before the walk: views that both
 * print on stdout, modifiers no requested output uses and `--html -` are
 * usage errors naming the options; every combination the README, `--help`
 * and `provenance.md` §10.1 document still works.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../support/cli.ts";
import { fixtureC, tmp } from "./support.ts";

const prov = (dir: string, ...args: string[]) =>
  runMain(["llm", "prov", ...args], { cwd: dir, env: { NO_COLOR: "1" } });

Deno.test("llm prov: options that cannot go together are usage errors naming both, before the walk", async () => {
  await using d = await tmp();
  fixtureC(d.path);
  const clashes: [string[], RegExp][] = [
    [["--by", "model", "--flow", "-e", "-c"], /Cannot combine --flow with --by: both print/],
    [["--mermaid", "--flow"], /Cannot combine --flow with --mermaid: both print on stdout/],
    [["--by", "model", "--dot", "-"], /Cannot combine --dot - with --by: both print/],
    [["--mermaid", "--dot", "-"], /Cannot combine --dot - with --mermaid: both print/],
    [["--json", "--dot", "-"], /Cannot combine --dot - with --json: both print/],
    [["--json", "--mermaid"], /Cannot combine --json with --mermaid: both print/],
    [["--by", "model", "-e"], /Cannot combine --evidence with --by: the evidence report/],
    [["--mermaid", "-e"], /Cannot combine --evidence with --mermaid/],
    [["--dot", "-", "-e"], /Cannot combine --evidence with --dot -/],
    [["--by", "model", "-c"], /Cannot combine --component with --by/],
    [["--by", "model", "-l"], /Cannot combine --long with --by/],
    [["--tools", "--flow"], /Cannot combine --flow with --tools/],
    [["--tools", "--html", "p.html"], /Cannot combine --html with --tools/],
    [["--json", "--html", "-"], /--html needs a file name/],
    [["--html", "-"], /--html needs a file name/],
  ];
  for (const [args, message] of clashes) {
    // a root that does not exist: the options are refused before anything is read
    const r = await prov(d.path, "missing.chat", ...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "", args.join(" "));
    assert.match(r.stderr, message, args.join(" "));
  }
});

Deno.test("llm prov: the documented combinations still work", async () => {
  await using d = await tmp();
  fixtureC(d.path);
  const out = (f: string) => join(d.path, f);
  const works = [
    ["--flow", "--evidence"],
    ["--flow", "-c"],
    ["-c", "-l", "-e"],
    ["--json"],
    ["--json", "--by", "agent"],
    ["--json", "--dot", out("j.dot")],
    ["--json", "--evidence", "--flow", "-c", "-l"], // JSON instead of the text views (§10.1)
    ["--by", "agent,model"],
    ["--by", "model", "-c", "--dot", out("c.dot")], // -c shapes the DOT
    ["--by", "agent", "--html", out("p.html")],
    ["--mermaid", "-c", "-l"],
    ["--dot", "-", "-c"],
    ["--dot", out("e.dot"), "-e"], // the evidence report alone on stdout
    ["--tools"],
    ["--tools", "--json"],
  ];
  for (const args of works) {
    const r = await prov(d.path, "parent.chat", "-J", "jobs", ...args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  }
});
