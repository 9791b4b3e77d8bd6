/**
 * `scout-ai llm prov` in-process (`provenance.md` §10, §11 tests 31–35):
 * views, options, root detection, exit codes, warnings, error fixtures.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain } from "../support/cli.ts";
import { isScoutError } from "../../src/errors.ts";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import { provenanceTokenEvents } from "../../src/provenance/tokens.ts";
import type { ErrorCase } from "../../fixtures/provenance/generate.ts";
import { ProvenanceDocument } from "./schema.ts";
import { assertRenders, entry, fixtureB, fixtureC, mkJob, rc, tmp, write } from "./support.ts";

/** `llm prov` in `dir`, with `-J dir/jobs` when the fixture has that directory. */
const prov = (dir: string, ...args: string[]) => {
  const jobs = existsSync(join(dir, "jobs")) ? ["-J", join(dir, "jobs")] : [];
  return runMain(["llm", "prov", ...args, ...jobs], { cwd: dir, env: { NO_COLOR: "1" } });
};

Deno.test("31: fixture B tree: collector total and one delegated receipt line", async () => {
  await using d = await tmp();
  fixtureB(d.path);
  const r = await prov(d.path, "parent.chat");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const lines = r.stdout.split("\n");
  assert.equal(lines[0], "chat total=290 prompt=185 cont=105 parent.chat");
  assert.equal(lines.filter((l) => l.includes("delegated receipt:")).length, 1);
  assert.ok(lines.includes("  delegated receipt: 2 events, total=180, ask"));
});

Deno.test("32: fixture B evidence report", async () => {
  await using d = await tmp();
  fixtureB(d.path);
  const r = await prov(d.path, "parent.chat", "--evidence");
  assert.equal(r.code, 0);
  const rows = r.stdout.split("\n");
  for (const id of ["p1", "w1", "w2", "w3"]) {
    assert.equal(rows.filter((l) => l.startsWith(id + " ")).length, 1, id);
  }
  assert.ok(r.stdout.includes("agent_meta parent.chat:3[agent_meta,0] call=a1"));
  assert.ok(r.stdout.includes("chat_meta agent.chat:3"));
  assert.ok(r.stdout.includes("counted once"));
  for (const absent of ["conflict", "Receipt-only events", "Job projection references"]) {
    assert.ok(!r.stdout.includes(absent), absent);
  }
});

Deno.test("33: fixture C tree, flow and DOT", async () => {
  await using d = await tmp();
  fixtureC(d.path);
  const tree = await prov(d.path, "parent.chat");
  assert.equal(tree.code, 0, tree.stderr);
  assert.equal(
    tree.stdout,
    [
      "chat total=232 prompt=160 cont=70 parent.chat",
      "  delegated receipt: 1 events, total=12, ask",
      "  job c",
      "  job total=220 prompt=150 cont=70 delegated-job w",
      "    delegated receipt: 1 events, total=40, ask",
      "    job 1",
      "    job delegated-job c (seen)",
      "",
    ].join("\n"),
  );
  const flow = await prov(d.path, "parent.chat", "--flow");
  const nodes = flow.stdout.split("\n").filter((l) => /^\[ ?\d+\] (Job|Chat) /.test(l));
  assert.equal(nodes.length, 4);
  const index = (label: string) =>
    nodes.findIndex((l) => /^\[ ?\d+\] (?:Job|Chat) +(\S+)/.exec(l)?.[1] === label) + 1;
  const [c, w, one] = [index("c"), index("w"), index("1")];
  const parent = nodes.findIndex((l) => l.includes("parent.chat")) + 1;
  const arrow = (a: number, label: string, b: number) =>
    `[${String(a).padStart(2)}] --${label.padEnd(10)}--> [${String(b).padStart(2)}]`;
  const arrows = flow.stdout.split("\n").filter((l) => l.includes("-->"));
  assert.deepEqual(
    arrows.sort(),
    [
      arrow(c, "result", parent),
      arrow(w, "delegated_result", parent),
      arrow(one, "dependency", w),
      arrow(c, "delegated_result", w),
    ].sort(),
  );
  const dot = await prov(d.path, "parent.chat", "--dot", "-");
  assert.equal(dot.stdout.match(/^ {2}n\d+ \[shape=/gm)?.length, 4);
  assert.deepEqual([...new Set(dot.stdout.match(/shape=\w+/g))].sort(), [
    "shape=box",
    "shape=note",
  ]);
  assert.ok(!dot.stdout.includes("agent_meta"));
  assertRenders(dot.stdout);
});

Deno.test("34: coverage lines only with receipts; receipt-only legacy evidence", async () => {
  await using d = await tmp();
  write(join(d.path, "plain.chat"), "user: q\n\nmeta: pt=1 tt=2 inference_id=x\n\nassistant: a\n");
  const plain = await prov(d.path, "plain.chat", "-c");
  assert.ok(!plain.stdout.includes("evidence "), plain.stdout);
  write(join(d.path, "legacy.chat"), rc({ a1: [entry("pt=3 ct=2 tt=5")] }));
  const c = await prov(d.path, "legacy.chat", "-c");
  assert.ok(c.stdout.includes("overlaps chat_evidence"));
  assert.ok(c.stdout.includes("no saved chat/log"));
  assert.ok(c.stdout.includes("evidence chat_evidence: total=0 "));
  assert.ok(c.stdout.includes("evidence receipt_only: total=5 prompt=3 cont=2 "));
  const e = await prov(d.path, "legacy.chat", "--evidence");
  assert.ok(e.stdout.includes("receipt=legacy.chat:3[agent_meta,0]"));
  assert.ok(e.stdout.includes("legacy unresolved"));
  assert.ok(
    e.stdout.includes(
      "Legacy unresolved events (no inference_id; one per receipt, may overcount):",
    ),
  );
});

const FIXTURES = join(ROOT, "fixtures/provenance/errors");
const CASES: ErrorCase[] = JSON.parse(readFileSync(join(FIXTURES, "cases.json"), "utf8"));

Deno.test("35: a malformed receipt warns on stderr and still prints the tokens (exit 0)", async () => {
  const dir = join(FIXTURES, "receipt_not_an_array");
  const r = await prov(dir, "session.chat");
  assert.equal(r.code, 0);
  assert.ok(r.stdout.includes("total=15"));
  for (const s of ["agent_meta receipt:", "not_an_array", "bad1"]) {
    assert.ok(r.stderr.includes(s), s);
  }
  const line = r.stderr.split("\n").find((l) => l.includes("agent_meta receipt:"));
  assert.ok(line?.endsWith(" reference not-an-array"), line);
  assert.ok(!r.stderr.includes("Incomplete provenance at"));
});

Deno.test("error fixtures: a warning by default, the typed error in strict mode", async (t) => {
  assert.equal(CASES.length, 13);
  for (const c of CASES) {
    await t.step(c.name, async () => {
      const dir = join(FIXTURES, c.name);
      const r = await prov(dir, c.root);
      assert.equal(r.code, 0, r.stderr);
      for (const s of c.stdout) {
        assert.ok(r.stdout.includes(s), `${c.name} stdout lacks ${s}:\n${r.stdout}`);
      }
      for (const s of c.stderr) {
        assert.ok(r.stderr.includes(s), `${c.name} stderr lacks ${s}:\n${r.stderr}`);
      }
      if (c.stderr.length === 0) assert.equal(r.stderr, "");
      const json = await prov(dir, c.root, "--json");
      const doc = ProvenanceDocument.parse(JSON.parse(json.stdout));
      assert.equal(doc.complete, c.code === null);
      const o = { cwd: dir, jobRoots: [join(dir, "jobs")], rootType: c.rootType };
      const strict = () => [...traverseProvenance(join(dir, c.root), o)];
      if (c.code === null) {
        strict();
        provenanceTokenEvents(join(dir, c.root), o);
      } else {
        assert.throws(strict, (e: unknown) => {
          assert.ok(isScoutError(e), String(e));
          assert.equal(e.code, c.code);
          if (c.reason) assert.equal(e.reason, c.reason);
          return true;
        });
      }
    });
  }
});

Deno.test("root detection: .info/.files make a job; a missing root is one line, exit 1", async () => {
  await using d = await tmp();
  mkJob(join(d.path, "jobs/Wf/t/Default_abcdef123"), [], {
    "agent.chat": "user: q\n\nmeta: pt=2 ct=1 tt=3 inference_id=j\n",
  }, { workflow: "Wf", task_name: "t" });
  const job = await prov(d.path, "jobs/Wf/t/Default_abcdef123");
  assert.equal(job.code, 0);
  assert.equal(job.stdout, "job total=3 prompt=2 cont=1 Wf/t abcdef12\n");
  mkdirSync(join(d.path, "only.files/log"), { recursive: true });
  const files = await prov(d.path, "only");
  assert.equal(files.stdout, "job only\n");
  const missing = await prov(d.path, "nope.chat");
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, "");
  assert.equal(missing.stderr, "scout-ai: Chat not found: nope.chat\n");
  const dir = await prov(d.path, "jobs");
  assert.equal(dir.code, 1);
  const none = await runMain(["llm", "prov"], { cwd: d.path });
  assert.equal(none.code, 2);
  // what ROOT is, not only that it is missing
  assert.match(none.stderr, /^scout-ai: Missing ROOT: a chat file or a job path$/m);
  const stdin = await prov(d.path, "-");
  assert.equal(stdin.code, 2);
});

Deno.test("llm prov: the usage says ROOT is required (stdin is refused: it has no provenance to walk)", async () => {
  const help = await runMain(["llm", "prov", "--help"], { cwd: ROOT });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: scout-ai llm prov \[options\] <root...>$/m); // before: [root]
  const stdin = await runMain(["llm", "prov", "-"], { cwd: ROOT });
  assert.equal(stdin.code, 2);
  assert.match(stdin.stderr, /prov needs a file: a chat read from stdin has no provenance/);
});

Deno.test("llm prov DIR: says it is a directory and what is expected, naming a chat or job inside", async () => {
  // before: "Chat not found: fixtures"
  const plain = await runMain(["llm", "prov", "fixtures"], { cwd: ROOT });
  assert.equal(plain.code, 1);
  assert.equal(
    plain.stderr,
    "scout-ai: fixtures is a directory; llm prov takes a chat file or a job path " +
      "(one with a .info or .files beside it)\n",
  );
  const society = await runMain(["llm", "prov", "fixtures/provenance/society/"], { cwd: ROOT });
  assert.equal(society.code, 1);
  assert.match(
    society.stderr,
    /^scout-ai: fixtures\/provenance\/society\/ is a directory; llm prov takes a chat file or a job path .*: e\.g\. fixtures\/provenance\/society\/plan\.chat\n$/,
  );
  // a job's .files directory: the job is the path without .files
  const files = "fixtures/provenance/example/jobs/Planner/ask/Default_a1b2c3d4e5.chat.files";
  const job = await runMain(["llm", "prov", files], { cwd: ROOT });
  assert.equal(job.code, 1);
  assert.match(
    job.stderr,
    /is a directory; .*: the job is fixtures\/provenance\/example\/jobs\/Planner\/ask\/Default_a1b2c3d4e5\.chat\n$/,
  );
  // a job's .info file (before: walked as a chat of no messages, exit 0)
  const info = await runMain(["llm", "prov", `${files.slice(0, -6)}.info`], { cwd: ROOT });
  assert.equal(info.code, 1);
  assert.equal(
    info.stderr,
    `scout-ai: ${files.slice(0, -6)}.info is a job's info file, not a chat; ` +
      `llm prov takes the job path: ${files.slice(0, -6)}\n`,
  );
});

Deno.test("--dot, --plot, --long, --json, --flow -c, --log 6, progress", async (t) => {
  await using d = await tmp();
  fixtureC(d.path);
  await t.step("--dot FILE writes DOT that Graphviz renders", async () => {
    const r = await prov(d.path, "parent.chat", "--dot", "out/p.dot");
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "", "no tree with --dot");
    assertRenders(readFileSync(join(d.path, "out/p.dot"), "utf8"));
  });
  await t.step("--plot renders svg, png and pdf; other extensions are usage errors", async () => {
    const plots = [
      ["p.svg", "<svg"],
      ["p.png", "PNG"],
      ["p.pdf", "%PDF"],
      ["noext", "<svg"],
      ["new/dir/p.svg", "<svg"], // missing directories are made, as for --html and --dot
    ];
    for (const [file, magic] of plots) {
      const r = await runMain(["llm", "prov", "parent.chat", "-p", file!, "-J", "jobs"], {
        cwd: d.path,
        env: { PATH: Deno.env.get("PATH") ?? "" },
      });
      assert.equal(r.code, 0, r.stderr);
      const head = new TextDecoder().decode(Deno.readFileSync(join(d.path, file!)).slice(0, 400));
      assert.ok(head.includes(magic!), `${file}: ${head}`);
    }
    const bad = await prov(d.path, "parent.chat", "--plot", "p.jpg");
    assert.equal(bad.code, 2);
    assert.ok(!existsSync(join(d.path, "p.jpg")));
    const noDot = await runMain(["llm", "prov", "parent.chat", "-p", "x.svg", "-J", "jobs"], {
      cwd: d.path,
      env: { PATH: "" },
    });
    assert.equal(noDot.code, 1);
    assert.ok(noDot.stderr.includes("Graphviz"));
  });
  await t.step("--plot - prints the SVG on stdout, as --dot - the DOT (R128-3)", async () => {
    const r = await runMain(["llm", "prov", "parent.chat", "-p", "-", "-J", "jobs"], {
      cwd: d.path,
      env: { PATH: Deno.env.get("PATH") ?? "" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /<svg[^]*<\/svg>\s*$/);
    assert.ok(!existsSync(join(d.path, "-")), "before: an SVG file named '-' in the cwd");
    const both = await prov(d.path, "parent.chat", "--plot", "-", "--dot", "-");
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Cannot combine --dot - with --plot -/);
  });
  await t.step("--long labels every node with its canonical path", async () => {
    const r = await prov(d.path, "parent.chat", "-l");
    assert.ok(
      r.stdout.startsWith(`chat total=232 prompt=160 cont=70 ${join(d.path, "parent.chat")}\n`),
    );
    assert.ok(r.stdout.includes(`job ${join(d.path, "jobs/Agents/critic/c")}\n`));
  });
  await t.step("--json validates and suppresses the text views", async () => {
    const r = await prov(d.path, "parent.chat", "--json", "--evidence", "--dot", "j.dot");
    const doc = ProvenanceDocument.parse(JSON.parse(r.stdout));
    assert.equal(doc.totals.deduplicated_total.tt, 232);
    assert.ok(existsSync(join(d.path, "j.dot")));
    const clash = await prov(d.path, "parent.chat", "--json", "--dot", "-");
    assert.equal(clash.code, 2);
  });
  await t.step("--flow -c prints direct tokens and coverage lines", async () => {
    const r = await prov(d.path, "parent.chat", "--flow", "-c");
    assert.ok(r.stdout.startsWith("Flow\n====\n"));
    assert.ok(r.stdout.includes("evidence deduplicated_total: total=232"));
    assert.match(r.stdout, /Chat {2}\S*parent\.chat +0 /, "the parent's own metas: none");
    assert.match(r.stdout, /Job {3}w +180 w\n/, "w's logs: w1 + w2 (c1 is a receipt)");
  });
  await t.step("--log 6 hides warnings; --log 5 shows them", async () => {
    write(join(d.path, "warn.chat"), "user: q\n\nmeta: job=Gone/t/x\n");
    const shown = await prov(d.path, "warn.chat");
    assert.ok(shown.stderr.includes("scout-ai: warning: Incomplete provenance at chat"));
    const hidden = await runMain(["--log", "6", "llm", "prov", "warn.chat"], { cwd: d.path });
    assert.equal(hidden.code, 0);
    assert.equal(hidden.stderr, "");
  });
  await t.step("progress goes to stderr on a terminal only", async () => {
    const tty = await runMain(["llm", "prov", "parent.chat", "-J", "jobs"], {
      cwd: d.path,
      tty: true,
      env: { NO_COLOR: "1" },
    });
    assert.ok(tty.stderr.includes("records"), tty.stderr);
    assert.ok(tty.stderr.endsWith("\r\x1b[K"));
    const pipe = await prov(d.path, "parent.chat");
    assert.equal(pipe.stderr, "");
    // a terminal that cannot redraw a line prints \r and ESC[K as they are: none there
    const dumb = await runMain(["llm", "prov", "parent.chat", "-J", "jobs"], {
      cwd: d.path,
      tty: true,
      env: { TERM: "dumb" },
    });
    assert.equal(dumb.code, 0);
    assert.equal(dumb.stderr, "");
  });
});

Deno.test("job= references outside the job roots or to non-jobs: warnings and JSON warnings, no nodes", async () => {
  await using d = await tmp();
  const outside = mkJob(join(d.path, "elsewhere/Wf/t/Out"));
  mkJob(join(d.path, "jobs/Wf/t/In"));
  write(join(d.path, "notes.txt"), "a file, not a job\n");
  write(
    join(d.path, "s.chat"),
    `user: q\n\nmeta: job=${outside}\n\nmeta: job=jobs/../elsewhere/Wf/t/Out\n\n` +
      "meta: job=notes.txt\n\nmeta: job=Wf/t/In\n",
  );
  const r = await prov(d.path, "s.chat");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    "chat s.chat\n  job In\n(incomplete: 3 unresolved references — see the warnings)\n",
  );
  const warned = r.stderr.split("\n").filter((l) => l.includes("Incomplete provenance at chat"));
  assert.equal(warned.length, 3, r.stderr);
  assert.ok(
    warned[0]!.includes(`"${outside}" in chat`) && warned[0]!.includes("outside every job root"),
  );
  assert.ok(warned[1]!.includes("outside every job root"));
  assert.ok(warned[2]!.includes('"notes.txt"') && warned[2]!.includes("does not resolve to a job"));
  const doc = ProvenanceDocument.parse(JSON.parse((await prov(d.path, "s.chat", "--json")).stdout));
  assert.equal(doc.complete, false);
  assert.deepEqual(doc.nodes.map((n) => n.kind + ":" + n.path), [
    `chat:${join(d.path, "s.chat")}`,
    `job:${join(d.path, "jobs/Wf/t/In")}`,
  ]);
  assert.deepEqual(
    doc.warnings.map((w) => [w.code, w.relation, w.reference]),
    [
      ["unresolved_job_reference", "job", outside],
      ["unresolved_job_reference", "job", "jobs/../elsewhere/Wf/t/Out"],
      ["unresolved_job_reference", "job", "notes.txt"],
    ],
  );
});

Deno.test("llm prov: <root> in the llm group's list as in its own usage; without it, what ROOT is", async () => {
  const group = await runMain(["llm", "--help"], { cwd: ROOT });
  assert.match(group.stdout, /^ {2}prov \[options\] <root...> /m); // before: [root] here
  const none = await runMain(["llm", "prov"], { cwd: ROOT });
  assert.equal(none.code, 2);
  assert.equal(
    none.stderr,
    "scout-ai: Missing ROOT: a chat file or a job path\n(run with --help for usage)\n",
  );
  // other commands keep commander's own words
  const ask = await runMain(["llm", "ask", "--bogus"], { cwd: ROOT });
  assert.match(ask.stderr, /^scout-ai: unknown option '--bogus'\n/);
});
