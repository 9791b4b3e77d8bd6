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

Deno.test("llm prov --jobs-dir: a missing directory or a file is an error naming it (exit 1), not an emptier walk", async () => {
  await using d = await tmp();
  fixtureC(d.path);
  // before: a mistyped folder printed the totals of what was reachable without it, exit 0
  const missing = await prov(d.path, "parent.chat", "-J", "jbos");
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, "");
  assert.equal(missing.stderr, 'scout-ai: Cannot use --jobs-dir "jbos": no such directory\n');
  const file = await prov(d.path, "parent.chat", "-J", "jobs", "--jobs-dir", "parent.chat");
  assert.equal(file.code, 1);
  assert.equal(
    file.stderr,
    'scout-ai: Cannot use --jobs-dir "parent.chat": it is not a directory\n',
  );
  const tools = await prov(d.path, "parent.chat", "--tools", "-J", "jbos");
  assert.equal(tools.code, 1);
  assert.match(tools.stderr, /--jobs-dir "jbos": no such directory/);
});
