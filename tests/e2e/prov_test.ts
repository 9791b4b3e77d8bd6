/**
 * `scout-ai llm prov` end to end: real subprocesses from source and the built
 * binary (byte-identical output on the bundled worked example), the README's
 * main-job command, Scout-made jobs, and inspection that executes nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BINARY, buildBinary, ROOT, runBinary, runScout } from "../support/cli.ts";
import { ProvenanceDocument } from "../provenance/schema.ts";
import { assertRenders, openDir, tmp, write } from "../provenance/support.ts";
import { generateStore } from "../../bench/prov_store.ts";
import { provenanceReport } from "../../src/provenance/report.ts";
import { renderTree } from "../../src/provenance/render_tree.ts";
import { provenanceJsonChunks } from "../../src/provenance/json.ts";
import { defaultJobRoots } from "../../src/provenance/jobs.ts";

const EXAMPLE = "fixtures/provenance/example";
const MAIN = ["llm", "prov", `${EXAMPLE}/session.chat`, "--jobs-dir", `${EXAMPLE}/jobs`];

Deno.test("the README's main-job command prints the worked example's tree", async () => {
  const r = await runScout(MAIN);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(
    r.stdout,
    Deno.readTextFileSync(join(ROOT, "tests/provenance/golden/example.tree.txt")),
  );
});

Deno.test("the binary and the source give byte-identical output on the example", async () => {
  await buildBinary();
  const variants = [
    [],
    ["--flow"],
    ["-c", "--evidence"],
    ["--json"],
    ["--dot", "-"],
    ["--long", "--flow", "-c"],
  ];
  for (const extra of variants) {
    const [a, b] = await Promise.all([
      runScout([...MAIN, ...extra]),
      runBinary([...MAIN, ...extra]),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, a.code, extra.join(" "));
    assert.equal(b.stdout, a.stdout, extra.join(" "));
    assert.equal(b.stderr, a.stderr, extra.join(" "));
    if (extra.includes("--json")) ProvenanceDocument.parse(JSON.parse(a.stdout));
    if (extra.includes("--dot")) assertRenders(a.stdout);
  }
  const missing = await runBinary(["llm", "prov", "nope.chat"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, "scout-ai: Chat not found: nope.chat\n");
  const usage = await runBinary(["llm", "prov"]);
  assert.equal(usage.code, 2);
});

Deno.test("the binary plots with Graphviz and reads Scout-made jobs", async () => {
  await buildBinary();
  await using d = await tmp();
  const svg = join(d.path, "example.svg");
  const r = await runBinary([...MAIN, "--plot", svg]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Deno.readTextFileSync(svg).includes("<svg"));
  const jobs = "fixtures/scout-jobs/var/jobs";
  const pipeline = await runBinary([
    "llm",
    "prov",
    `${jobs}/Pipeline/ask/Default_dbfa89396d7a5eb718c1a46679e1a356.chat`,
    "-J",
    jobs,
  ]);
  assert.equal(pipeline.code, 0, pipeline.stderr);
  assert.equal(
    pipeline.stdout,
    "job total=195 prompt=160 cont=35 Pipeline/ask dbfa8939\n" +
      "  chat total=45 prompt=40 cont=5 Worker · c1\n",
  );
  // a dependency written as another machine's absolute path is found by relocation;
  // the job failed in Scout (status error), which its label says (R87-4)
  const bake = await runBinary(["llm", "prov", `${jobs}/Baking/bake/Default`, "-J", jobs]);
  assert.equal(bake.code, 0, bake.stderr);
  assert.equal(
    bake.stdout,
    "job Baking/bake Default [error]\n  job Baking/batter 8a5584e7\n    job Baking/whisk 09c56566\n",
  );
  const legacy = await runBinary(["llm", "prov", `${jobs}/Legacy/old/Default`, "-J", jobs]);
  assert.equal(legacy.code, 0);
  assert.match(
    legacy.stderr,
    /Incomplete provenance at job .*Legacy\/old\/Default \(dependency\): .*Ruby Marshal/,
  );
});

Deno.test("the binary's helper thread: a generated store prints what the walk alone prints", async () => {
  await buildBinary();
  await using d = await tmp();
  const store = await generateStore(d.path, { scale: 0.15, seed: 9 });
  // (the helper starts once 1,000 chats are queued)
  assert.ok(store.chats > 1300, `${store.chats} chats: too few to start the helper`);
  const env = { HOME: d.path, SCOUT_HOME: join(d.path, ".scout") };
  const report = provenanceReport(store.root, {
    cwd: d.path,
    jobRoots: [store.jobsDir, ...defaultJobRoots(d.path, env)],
    env,
    helperThreshold: Infinity, // read on one thread: the reference
  });
  const args = ["llm", "prov", store.root, "--jobs-dir", store.jobsDir];
  const tree = await runBinary(args, { cwd: d.path, env });
  assert.equal(tree.code, 0, tree.stderr);
  assert.equal(tree.stderr, "");
  assert.equal(tree.stdout, renderTree(report, {}));
  const json = await runBinary([...args, "--json"], { cwd: d.path, env });
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stdout, [...provenanceJsonChunks(report)].join(""));
});

Deno.test("inspection executes nothing: task/exec_task/import/file lines are inert", async () => {
  await buildBinary();
  await using d = await tmp();
  openDir(d.path);
  const fifo = join(d.path, "never.fifo");
  assert.equal(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().code, 0);
  const chat = write(
    join(d.path, "inert.chat"),
    `exec_task: Baking whisk --eggs=3\n\ntask: Baking bake\n\ninline_task: Slow nap\n\n` +
      `import: ${fifo}\n\nfile: ${fifo}\n\ncontinue: ${fifo}\n\nuser: go\n\n` +
      `meta: pt=3 ct=1 tt=4 inference_id=i1\n\nassistant: done\n`,
  );
  // Opening the fifo for reading would block forever: the run would hit the timeout.
  // A workflow job run would create SCOUT_HOME/var/jobs.
  const home = join(d.path, "home");
  const child = new Deno.Command(BINARY, {
    args: ["llm", "prov", chat, "--json"],
    cwd: d.path,
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).spawn();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const doc = ProvenanceDocument.parse(JSON.parse(new TextDecoder().decode(out.stdout)));
  assert.deepEqual(doc.nodes.map((n) => n.path), [chat]);
  assert.deepEqual(doc.edges, []);
  assert.equal(doc.totals.deduplicated_total.tt, 4);
  assert.equal(doc.complete, true);
  let made = true;
  try {
    Deno.statSync(join(home, "var"));
  } catch {
    made = false;
  }
  assert.equal(made, false, "no job store was touched");
});

Deno.test("the binary runs prov in a child with JSC's FTL tier and concurrent GC off, a small RAM size and synchronous sweeping, unless set", async () => {
  await buildBinary();
  await using d = await tmp();
  // A fake Graphviz `dot` that records the variable it inherits from prov's process.
  const fakeBin = join(d.path, "bin");
  const seen = join(d.path, "seen");
  write(
    join(fakeBin, "dot"),
    `#!/bin/sh\necho "\${BUN_JSC_useFTLJIT-unset} \${BUN_JSC_useConcurrentGC-unset} \${BUN_JSC_forceRAMSize-unset} \${BUN_JSC_sweepSynchronously-unset}" >> "${seen}"\n` +
      `while [ $# -gt 0 ]; do [ "$1" = -o ] && echo '<svg/>' > "$2"; shift; done\n`,
  );
  Deno.chmodSync(join(fakeBin, "dot"), 0o755);
  const env = { PATH: `${fakeBin}:${Deno.env.get("PATH")}` };
  const plot = [...MAIN, "--plot", join(d.path, "p.svg")];
  const tuned = await runBinary(plot, { env });
  assert.equal(tuned.code, 0, tuned.stderr);
  const kept = await runBinary(plot, { env: { ...env, BUN_JSC_useFTLJIT: "1" } });
  assert.equal(kept.code, 0, kept.stderr);
  const own = await runBinary(plot, { env: { ...env, BUN_JSC_useConcurrentGC: "1" } });
  assert.equal(own.code, 0, own.stderr);
  const source = await runScout(plot, { env });
  assert.equal(source.code, 0, source.stderr);
  // respawned with both; FTL chosen by the user: no child; the user's GC choice kept in the
  // child; from source, untouched
  assert.deepEqual(Deno.readTextFileSync(seen).trim().split("\n"), [
    `0 0 ${192 * 1048576} 1`,
    "1 unset unset unset",
    `0 1 ${192 * 1048576} 1`,
    "unset unset unset unset",
  ]);
  // the child's output, status and errors are the command's: same as from source
  assert.equal(tuned.stdout, source.stdout);
  assert.equal(tuned.stderr, source.stderr);
  const missing = await runBinary(["--log", "6", "llm", "prov", "nope.chat"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, "scout-ai: Chat not found: nope.chat\n");
});

Deno.test("a signal sent to the binary's prov process reaches its child (no orphan walk)", async () => {
  await buildBinary();
  await using d = await tmp();
  const store = await generateStore(d.path, { scale: 0.1, seed: 4 });
  // (/proc is read through `sh`: Deno grants /proc only with --allow-all)
  const sh = async (cmd: string) =>
    new TextDecoder().decode((await new Deno.Command("sh", { args: ["-c", cmd] }).output()).stdout);
  // --json into a pipe nobody reads: the child blocks writing its ~9 MB, so it is
  // still there however slow this machine is, until a signal ends it.
  const parent = new Deno.Command(BINARY, {
    args: ["llm", "prov", store.root, "--jobs-dir", store.jobsDir, "--json"],
    cwd: d.path,
    env: { HOME: d.path, SCOUT_HOME: join(d.path, ".scout") },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let child = 0;
  for (let i = 0; i < 500 && child === 0; i++) {
    child = Number((await sh(`pgrep -P ${parent.pid}`)).trim().split(/\s+/)[0] || 0);
  }
  assert.ok(child > 0, "the binary started no child for llm prov");
  parent.kill("SIGTERM");
  const end = await parent.status;
  // Passed on, the signal ends the child; not passed on, the child would stay blocked
  // (up to 5 s: a CI machine under the parallel test run once took over 1 s to reap it).
  let alive = true;
  for (let i = 0; i < 500 && alive; i++) {
    alive = (await sh(`kill -0 ${child} 2>/dev/null && echo alive`)).trim() === "alive";
    if (alive) await new Promise((r) => setTimeout(r, 10));
  }
  if (alive) Deno.kill(child, "SIGKILL");
  await parent.stdout.cancel();
  assert.ok(!alive, "the child outlived its parent: SIGTERM was not passed on");
  assert.equal(end.signal, "SIGTERM"); // and the parent ends the way the child did
});
