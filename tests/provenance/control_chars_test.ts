/**
 * Names from the store reach the terminal escaped, never raw: a job whose
 * `.info` names its workflow `W<ESC>[2J` (a screen clear) and its task
 * `t<TAB>x`, a society folder `Cr<TAB>it<LF>ic`, a model `m<ESC>[31m`, an
 * inference id `a<ESC>1`, a missing job's reference and a
 * chat `R&amp;D<TAB>.chat` show as `W\u001b[2J`, `t\tx`, `Cr\tit\nic`… in the
 * tree, the flow, the `--by` table, the evidence report, Mermaid, the
 * warnings and DOT (drawn by real Graphviz), each node on one line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain } from "../support/cli.ts";
import { mkJob, tmp, write } from "./support.ts";

const JOB = "W/t/Default_b4bd4948975eaeee0510916bd4f0e87a";
const CHAT = "R&amp;D\t.chat";

/** The hostile store: one job, its society log, and the root chat. */
function hostileStore(dir: string): void {
  mkJob(join(dir, "jobs", JOB), null, {
    "society/Cr\tit\nic/default.chat":
      "user: go\n\nmeta: pt=10 ct=1 tt=11 inference_id=a\x1b1 model=m\x1b[31m\n\nassistant: ok\n",
  }, { workflow: "W\x1b[2J", task_name: "t\tx" });
  write(
    join(dir, CHAT),
    `user: x\n\nmeta: job=${JOB}\n\nmeta: job=W/t/missing\x1b[2J\n\nassistant: ok\n`,
  );
}

// deno-lint-ignore no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

async function prov(dir: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runMain(["llm", "prov", CHAT, "-J", "jobs", ...args], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, RAW, `${args.join(" ")}: ${JSON.stringify(r.stdout)}`);
  assert.doesNotMatch(r.stderr, RAW, `${args.join(" ")}: ${JSON.stringify(r.stderr)}`);
  return r;
}

Deno.test("control characters from the store are escaped in the tree, flow, tables, evidence, Mermaid and warnings", async () => {
  await using d = await tmp();
  hostileStore(d.path);
  const tree = await prov(d.path);
  assert.equal(
    tree.stdout,
    [
      "chat total=11 prompt=10 cont=1 R&amp;D\\t.chat",
      "  job total=11 prompt=10 cont=1 W\\u001b[2J/t\\tx b4bd4948",
      "    chat total=11 prompt=10 cont=1 Cr\\tit\\nic · default",
      "(incomplete: 1 unresolved reference — see the warnings)",
      "",
    ].join("\n"),
  );
  assert.ok(tree.stderr.includes('"W/t/missing\\u001b[2J"'), tree.stderr);
  assert.equal(tree.stderr.trimEnd().split("\n").length, 1, tree.stderr);

  const flow = (await prov(d.path, "--flow", "-e")).stdout;
  assert.match(flow, /^\[ 1\] Job {3}W\\u001b\[2J\/t\\tx b4bd4948 +11 b4bd4948$/m);
  assert.match(flow, /^\[ 3\] Chat  Cr\\tit\\nic · default +11 [0-9a-f]{8}$/m);
  assert.equal(flow.split("\n").filter((l) => /^\[ \d\] (Job|Chat) /.test(l)).length, 3);
  assert.match(
    flow,
    /^a\\u001b1 +total=11 prompt=10 cont=1 +chat_meta default\.chat:2 +counted once$/m,
  );

  const table = (await prov(d.path, "--by", "agent,job,model")).stdout;
  assert.equal(
    table.split("\n")[1],
    "Cr\\tit\\nic  W\\u001b[2J/t\\tx b4bd4948  m\\u001b[31m  1  10   1  11    0    0   0",
  );

  const mermaid = (await prov(d.path, "--mermaid")).stdout;
  // `\` as an entity: Mermaid would read the escaped `\n` as a line break (R99-4)
  assert.ok(mermaid.includes("Cr#92;tit#92;nic · default<br/>11 tokens"), mermaid);
});

/** The text lines of Graphviz SVG, entities decoded. */
function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    m[1]!.replace(
      /&(lt|gt|quot|#39|amp);/g,
      (_, e: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[e]!,
    )
  );
}

/** Runs `dot -Tsvg` on `text`. */
async function dotSvg(text: string): Promise<string> {
  const p = new Deno.Command("dot", { args: ["-Tsvg"], stdin: "piped", stdout: "piped" }).spawn();
  const w = p.stdin.getWriter();
  await w.write(new TextEncoder().encode(text));
  await w.close();
  const out = await p.output();
  assert.equal(out.code, 0);
  return new TextDecoder().decode(out.stdout);
}

Deno.test("DOT: Graphviz draws escaped names as the text views show them, one line each", async () => {
  await using d = await tmp();
  hostileStore(d.path);
  const texts = svgTexts(await dotSvg((await prov(d.path, "--dot", "-")).stdout));
  assert.ok(texts.includes("W\\u001b[2J/t\\tx b4bd4948"), JSON.stringify(texts));
  assert.ok(texts.includes("Cr\\tit\\nic · default"), JSON.stringify(texts));
  assert.ok(!texts.some((t) => t.includes("u001b[2J") && !t.includes("\\u001b[2J")));
  // three lines per node (kind, label, tokens), plus the two edge labels and the graph's
  // label: this store's walk is incomplete (R127-1)
  assert.equal(texts[0], "incomplete: 1 unresolved reference — see the warnings");
  assert.equal(texts.length, 3 * 3 + 2 + 1, JSON.stringify(texts));
});

Deno.test("DOT: Graphviz draws an entity in a name as written (R&amp;D.chat, not R&D.chat)", async () => {
  await using d = await tmp();
  hostileStore(d.path);
  const dot = (await prov(d.path, "--dot", "-")).stdout;
  assert.ok(dot.includes('label="Chat\\nR&amp;amp;D\\\\t.chat\\n11 tokens"'), dot);
  const texts = svgTexts(await dotSvg(dot));
  assert.ok(texts.includes("R&amp;D\\t.chat"), JSON.stringify(texts));
});

Deno.test("repeated labels: the parts that tell them apart (the job a log is in) are escaped too", async () => {
  await using d = await tmp();
  const jobs = ["W\x1b[2J/t/Default_aaaaaaaa11112222", "W\x1b[2J/t/Default_bbbbbbbb33334444"];
  for (const job of jobs) {
    mkJob(join(d.path, "jobs", job), null, {
      "society/Critic/default.chat": `user: go\n\nmeta: pt=10 ct=1 tt=11 inference_id=${
        job.slice(-4)
      }\n\nassistant: ok\n`,
    }, { workflow: "W", task_name: "t" });
  }
  write(
    join(d.path, "s.chat"),
    `user: x\n\n${jobs.map((j) => `meta: job=${j}\n\n`).join("")}assistant: ok\n`,
  );
  for (const view of [["--flow"], ["--mermaid"]]) {
    const r = await runMain(["llm", "prov", "s.chat", "-J", "jobs", ...view], {
      cwd: d.path,
      env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, RAW, `${view}: ${JSON.stringify(r.stdout)}`);
    // (Mermaid writes the \ as #92; and the [ as #91;)
    assert.match(r.stdout, /in W(\\|#92;)u001b(\[|#91;)2J\/t\/Default_aaaaaaaa11112222/);
  }
});
