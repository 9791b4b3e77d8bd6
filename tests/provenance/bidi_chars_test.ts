/**
 * Bidi controls and invisible characters from the store are escaped like
 * control characters (R99-3): a model `cheap<U+202E>` no longer reverses
 * the rest of its `--by model` row, and labels that differ only by a
 * zero-width space do not look the same. Every view: tree, `-l`, `--flow`,
 * `--by`, `--tools`, Mermaid, DOT, the page and the warnings.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../support/cli.ts";
import { mkJob, tmp, write } from "./support.ts";

const JOB = "W/t/Default_b4bd4948975eaeee0510916bd4f0e87a";
const RAW = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\ufeff]/;

function store(dir: string): void {
  mkJob(join(dir, "jobs", JOB), null, {
    "society/Cr\u200bitic/default.chat":
      "user: go\n\nmeta: pt=10 ct=1 tt=11 inference_id=a1 model=cheap\u202e\n\n" +
      "function_call:\n\n" +
      '{"name":"to\u2066ol","arguments":{},"id":"c1"}\n\n' +
      'function_call_output:\n\n{"name":"to\u2066ol","content":"ok","id":"c1"}\n\nassistant: ok\n',
  }, { workflow: "W\u061c\u200e", task_name: "t\ufeff" });
  write(
    join(dir, "s.chat"),
    `user: x\n\nmeta: job=${JOB}\n\nmeta: job=W/t/missing\u2067\n\nassistant: ok\n`,
  );
}

async function prov(dir: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runMain(["llm", "prov", "s.chat", "-J", "jobs", ...args], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  for (const [name, text] of [["stdout", r.stdout], ["stderr", r.stderr]]) {
    assert.doesNotMatch(text!, RAW, `${args.join(" ")} ${name}: ${JSON.stringify(text)}`);
  }
  return r;
}

Deno.test("bidi and invisible characters are escaped in a --by row and the tree (R99-3)", async () => {
  await using d = await tmp();
  store(d.path);
  const table = (await prov(d.path, "--by", "model")).stdout;
  assert.match(table.split("\n")[1]!, /^cheap\\u202e +1 +10 +1 +11/);
  const tree = (await prov(d.path)).stdout;
  assert.ok(tree.includes("job total=11 prompt=10 cont=1 W\\u061c\\u200e/t\\ufeff b4bd4948"), tree);
  assert.ok(tree.includes("Cr\\u200bitic · default"), tree);
  const warnings = (await prov(d.path)).stderr;
  assert.ok(warnings.includes("W/t/missing\\u2067"), warnings);
  for (const view of [["-l"], ["--flow", "-e"], ["--tools"], ["--mermaid"], ["--dot", "-"]]) {
    await prov(d.path, ...view);
  }
  const tools = (await prov(d.path, "--tools")).stdout;
  assert.ok(tools.includes("to\\u2066ol"), tools);
  await prov(d.path, "--html", "p.html");
  const html = await Deno.readTextFile(join(d.path, "p.html"));
  const data = /<script type="application\/json" id="prov-data">(.*?)<\/script>/s.exec(html)![1]!;
  const labels = JSON.parse(data).nodes.map((n: { label: string }) => n.label).join("\n");
  assert.doesNotMatch(labels, RAW, labels);
});

Deno.test("the page's <title> and <h1> escape a bidi control in the root's name, as its labels do (R162-4)", async () => {
  await using d = await tmp();
  write(join(d.path, "ab\u202ecd.chat"), "user: x\n\nassistant: ok\n");
  const r = await runMain(["llm", "prov", "ab\u202ecd.chat", "--html", "p.html"], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const html = await Deno.readTextFile(join(d.path, "p.html"));
  const title = /<title>(.*?)<\/title>/s.exec(html)![1]!;
  const h1 = /<h1>(.*?)<\/h1>/s.exec(html)![1]!;
  for (const text of [title, h1]) {
    assert.doesNotMatch(text, RAW, text);
    assert.ok(text.startsWith("Provenance of ") && text.endsWith("ab\\u202ecd.chat"), text);
  }
});
