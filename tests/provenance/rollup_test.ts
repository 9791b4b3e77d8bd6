/**
 * Roll-ups by agent / model / endpoint / job and costs, hand-computed on a
 * copy of the worked example (`fixtures/provenance/example`) whose meta
 * records gain `model=`/`backend=`/`endpoint=` keys and cached tokens on
 * three inferences; the others stay legacy records (no model).
 *
 * The example's events (tt): s1 60, s2 95 (root session.chat), p1 240, p2 320
 * (Planner/ask's own log), c1 48 (its society/Critic log), w1 120 (Worker/ask's
 * log, also a receipt), w9 35 (a receipt only, of the call to Worker/ask).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { provenanceReport } from "../../src/provenance/report.ts";
import { costOf, priceOf, priceTable } from "../../src/provenance/prices.ts";
import { parseRollupDimensions, renderRollup, rollup } from "../../src/provenance/rollup.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { isScoutError } from "../../src/errors.ts";
import { ProvenanceDocument } from "./schema.ts";

const PRICES = priceTable({
  "gpt-5-nano": { input: 0.05, cached_input: 0.005, output: 0.4, reasoning: 0.8 },
  "claude-sonnet-4-5": { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
}, "prices.yaml");

async function example(): Promise<
  { dir: AsyncDisposable & { path: string }; root: string; jobs: string }
> {
  const dir = await tempDir();
  await new Deno.Command("cp", {
    args: ["-r", join(ROOT, "fixtures", "provenance", "example"), dir.path],
  }).output();
  const base = join(dir.path, "example");
  const edit = async (rel: string, from: string, to: string) => {
    const f = join(base, rel);
    const text = await Deno.readTextFile(f);
    assert.ok(text.includes(from), `${rel} has ${from}`);
    await Deno.writeTextFile(f, text.replace(from, to));
  };
  await edit(
    "session.chat",
    "meta: pt=50 ct=10 tt=60 inference_id=s1",
    "meta: pt=50 ct=10 tt=60 cct=20 inference_id=s1 model=gpt-5-nano backend=responses endpoint=nano",
  );
  const planner = "jobs/Planner/ask/Default_a1b2c3d4e5.chat.files/log/";
  await edit(
    planner + "agent.chat",
    "meta: pt=200 ct=40 tt=240 inference_id=p1",
    "meta: pt=200 ct=40 tt=240 rt=10 inference_id=p1 model=gpt-5-nano backend=responses endpoint=nano",
  );
  await edit(
    planner + "society/Critic/default.chat",
    "meta: pt=40 ct=8 tt=48 inference_id=c1",
    "meta: pt=40 ct=8 tt=48 cct=100 cwt=10 inference_id=c1 model=claude-sonnet-4-5-20250929 backend=anthropic endpoint=claude",
  );
  return { dir, root: join(base, "session.chat"), jobs: join(base, "jobs") };
}

/** A Scout home under `dir` with prices for the example's two models. */
async function pricedHome(dir: string): Promise<string> {
  const home = join(dir, "home");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "prices.yaml"),
    "gpt-5-nano: {input: 0.05, cached_input: 0.005, output: 0.4, reasoning: 0.8}\n" +
      "claude-sonnet-4-5: {input: 3, cached_input: 0.3, cache_write: 3.75, output: 15}\n",
  );
  return home;
}

Deno.test("rollup --by agent: root, Planner (own log), Critic (society log), Worker (log + receipt-only call)", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const report = provenanceReport(root, { jobRoots: [jobs] });
  assert.equal(report.totals.deduplicated_total.tt, 918);
  const r = rollup(report, ["agent"]);
  const got = Object.fromEntries(r.groups.map((g) => [g.key.agent, [g.inferences, g.tokens.tt]]));
  assert.deepEqual(got, {
    "(root)": [2, 60 + 95],
    Planner: [2, 240 + 320],
    Worker: [2, 120 + 35], // w1 from its log, w9 from the receipt of the call that delegated to it
    Critic: [1, 48],
  });
  // every inference once: the groups add up to the deduplicated total
  assert.equal(r.groups.reduce((a, g) => a + g.tokens.tt, 0), 918);
  assert.deepEqual(r.groups.map((g) => g.key.agent), ["Planner", "(root)", "Worker", "Critic"]);
});

Deno.test("rollup --by agent: a renamed copy of a society log that sorts first leaves the spend with the specialist (R93-4)", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const log = join(jobs, "Planner/ask/Default_a1b2c3d4e5.chat.files/log");
  await Deno.mkdir(join(log, "old"));
  await Deno.copyFile(
    join(log, "society/Critic/default.chat"),
    join(log, "old/default-renamed.chat"),
  );
  const report = provenanceReport(root, { jobRoots: [jobs] });
  assert.equal(report.totals.deduplicated_total.tt, 918);
  const got = (r: ReturnType<typeof rollup>) =>
    Object.fromEntries(r.groups.map((g) => [g.key.agent, [g.inferences, g.tokens.tt]]));
  const want = {
    "(root)": [2, 60 + 95],
    Planner: [2, 240 + 320],
    Worker: [2, 120 + 35],
    Critic: [1, 48],
  };
  assert.deepEqual(got(rollup(report, ["agent"])), want);
  // the same rule when the roll-up reads whole events (every copy)
  const whole = { ...report, events: Array.from(report.events) } as unknown as typeof report;
  assert.deepEqual(got(rollup(whole, ["agent"])), want);
  const cli = await runMain(["llm", "prov", root, "-J", jobs, "--by", "agent", "--json"], {
    cwd: dir.path,
  });
  const groups = JSON.parse(cli.stdout).rollups[0].groups as { key: { agent: string } }[];
  assert.ok(groups.some((g) => g.key.agent === "Critic"), cli.stdout);
});

Deno.test("rollup --by model,endpoint with costs: cached tokens priced from cct/cwt; legacy records are '(none)' (R134-4)", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const r = rollup(provenanceReport(root, { jobRoots: [jobs] }), ["model", "endpoint"], PRICES);
  const by = Object.fromEntries(r.groups.map((g) => [g.key.model, g]));
  // gpt-5-nano: s1 (pt 50 incl. 20 cached, ct 10) and p1 (pt 200, ct 40 of which rt 10)
  //   s1: 30×0.05 + 20×0.005 + 10×0.4 = 5.6;  p1: 200×0.05 + 30×0.4 + 10×0.8 = 30  → 35.6 / 1e6
  assert.equal(by["gpt-5-nano"]!.inferences, 2);
  assert.equal(by["gpt-5-nano"]!.key.endpoint, "nano");
  assert.deepEqual(by["gpt-5-nano"]!.tokens, { pt: 250, ct: 50, tt: 300, cct: 20, cwt: 0, rt: 10 });
  assert.ok(Math.abs(by["gpt-5-nano"]!.cost! - 35.6e-6) < 1e-12);
  // claude (Anthropic usage: cache reads and writes outside pt; priced by prefix)
  //   c1: 40×3 + 100×0.3 + 10×3.75 + 8×15 = 307.5 / 1e6
  assert.ok(Math.abs(by["claude-sonnet-4-5-20250929"]!.cost! - 307.5e-6) < 1e-12);
  // legacy records: s2, p2, w1, w9 in an explicit group without a price
  assert.equal(by["(none)"]!.inferences, 4);
  assert.equal(by["(none)"]!.key.endpoint, "(none)");
  assert.equal(by["(none)"]!.cost, null);
  assert.deepEqual(r.unpriced, ["(none)"]);
  assert.equal(r.noModel, 4);
  const table = renderRollup(r, true);
  assert.match(table, /^model\s+endpoint\s+n\s+pt\s+ct\s+tt\s+cct\s+cwt\s+rt\s+cost$/m);
  assert.match(table, /^\(none\)\s+\(none\)\s+4\s+.*\?$/m);
  // below a cent: two significant figures (35.6e-6, 307.5e-6), not $0.0000 and $0.0003
  assert.match(table, /^gpt-5-nano\s+nano\s+2\s+250\s+50\s+300\s+20\s+0\s+10\s+\$0\.000036$/m);
  assert.match(table, /^claude-sonnet-4-5-20250929\s+claude\s+1\s+.*\$0\.00031$/m);
});

Deno.test("rollup --by job and agent,model: the Critic's society log counts in the Planner's job", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const report = provenanceReport(root, { jobRoots: [jobs] });
  const byJob = Object.fromEntries(
    rollup(report, ["job"]).groups.map((g) => [g.key.job, g.tokens.tt]),
  );
  assert.deepEqual(byJob, {
    "Planner/ask a1b2c3d4": 240 + 320 + 48,
    "(none)": 155,
    "Worker/ask f00dcafe": 155,
  });
  const two = rollup(report, parseRollupDimensions("agent,model,agent"));
  assert.deepEqual(two.by, ["agent", "model"]);
  assert.deepEqual(
    two.groups.find((g) => g.key.agent === "Planner" && g.key.model === "gpt-5-nano")?.tokens.tt,
    240,
  );
  // the project's usage error at the source (exit 2 wherever it is called from)
  assert.throws(() => parseRollupDimensions("agent,colour"), (e) => {
    assert.ok(isScoutError(e, "usage"), String(e));
    assert.equal(e.message, 'Unknown --by dimension "colour" (agent, model, endpoint, job)');
    return true;
  });
});

Deno.test("prices: exact entry before the longest prefix; OpenAI-style legacy usage keeps cached inside pt", () => {
  const t = { "gpt-5": { input: 1, output: 2 }, "gpt-5-nano": { input: 0.05, output: 0.4 } };
  const table = priceTable({ models: t }, "p.yaml");
  assert.equal(priceOf("gpt-5-nano-2025", table)!.input, 0.05);
  // another model that begins with an entry's name is not priced by it (R134-2)
  assert.equal(priceOf("gpt-5-mini", table), null);
  assert.equal(priceOf("o3", table), null);
  // no backend: cct inside pt when it fits (OpenAI), outside when it cannot
  const tokens = { pt: 100, ct: 0, tt: 100, cct: 40, cwt: 0, rt: 0 };
  assert.equal(costOf(tokens, { model: "gpt-5" }, table), (60 * 1 + 40 * 1) / 1e6);
  assert.equal(
    costOf({ ...tokens, pt: 10 }, { model: "gpt-5" }, table),
    (10 + 40) / 1e6,
  );
  assert.throws(
    () => priceTable({ m: { input: "cheap", output: 1 } }, "p.yaml"),
    /Invalid price p\.yaml: m\.input/,
  );
  assert.throws(() => priceTable({ m: { input: 1 } }, "p.yaml"), /needs "input" and "output"/);
});

Deno.test("llm prov --by: table with cost from $SCOUT_HOME/etc/prices.yaml; --json gains rollups (v1)", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "prices.yaml"),
    "gpt-5-nano: {input: 0.05, cached_input: 0.005, output: 0.4, reasoning: 0.8}\n",
  );
  const env = { SCOUT_HOME: home };
  const t = await runMain(["llm", "prov", root, "-J", jobs, "--by", "model"], {
    env,
    cwd: dir.path,
  });
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /^gpt-5-nano\s+2\s+250\s+50\s+300\s+20\s+0\s+10\s+\$0\.000036$/m);
  assert.match(t.stdout, /^claude-sonnet-4-5-20250929\s+1\s+.*\?$/m);
  // the priced part and the unpriced count, as the tree's total (before: a bare `cost: ?`)
  assert.match(t.stdout, /^cost: \$0\.000036 \+ \? \(5 of 7 inferences unpriced\)$/m);
  assert.match(t.stderr, /no price for claude-sonnet-4-5-20250929 \(/);
  assert.match(t.stderr, /4 inferences name no model \(their meta records have no model=\)/);
  // the tree ends with the run's cost: priced models summed, the rest counted
  const tree = await runMain(["llm", "prov", root, "-J", jobs], { env, cwd: dir.path });
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /\ncost: \$0\.000036 \+ \? \(5 of 7 inferences unpriced\)\n$/);
  const noPrices = await runMain(["llm", "prov", root, "-J", jobs], {
    env: { SCOUT_HOME: join(dir.path, "nohome") },
    cwd: dir.path,
  });
  assert.doesNotMatch(noPrices.stdout, /cost:/);
  const j = await runMain(["llm", "prov", root, "-J", jobs, "--by", "agent", "--json"], {
    env: { SCOUT_HOME: join(dir.path, "nohome") },
    cwd: dir.path,
  });
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  ProvenanceDocument.parse(doc); // rollups as docs/provenance-json.md shows them
  assert.equal(doc.version, 1);
  const groups = doc.rollups[0].groups as { tokens: { tt: number }; cost?: number }[];
  assert.equal(groups.reduce((a, g) => a + g.tokens.tt, 0), doc.totals.deduplicated_total.tt);
  assert.ok(groups.every((g) => !("cost" in g)), "no prices, no cost");
  const bad = await runMain(["llm", "prov", root, "-J", jobs, "--by", "colour"], {
    env,
    cwd: dir.path,
  });
  assert.equal(bad.code, 2);
  assert.equal(
    bad.stderr,
    'scout-ai: Unknown --by dimension "colour" (agent, model, endpoint, job)\n' +
      "(run with --help for usage)\n",
  );
  // decided before the walk: a missing root is not even looked for
  const early = await runMain(["llm", "prov", "missing.chat", "--by", "colour"], {
    env,
    cwd: dir.path,
  });
  assert.equal(early.code, 2, early.stderr);
  assert.match(early.stderr, /^scout-ai: Unknown --by dimension "colour"/);
});

Deno.test("node costs with prices: direct as tokens count, subtree over what each node reaches; the tree shows them", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const report = provenanceReport(root, { jobRoots: [jobs], prices: PRICES });
  // by hand (dollars per million tokens): s1 nano, responses (cached inside pt):
  // (30×0.05 + 20×0.005 + 10×0.4) = 5.6; p1 nano: (200×0.05 + 30×0.4 + 10×0.8) = 30;
  // c1 claude, anthropic (cache outside pt): (40×3 + 100×0.3 + 10×3.75 + 8×15) = 307.5
  const [s1, p1, c1] = [5.6e-6, 30e-6, 307.5e-6];
  const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≈ ${b}`);
  const rootNode = report.nodes.at(0)!;
  near(rootNode.cost!.direct.dollars, s1);
  assert.equal(rootNode.cost!.direct.unpriced, 1); // s2
  near(rootNode.cost!.subtree.dollars, s1 + p1 + c1);
  assert.equal(rootNode.cost!.subtree.unpriced, 4); // s2, p2, w1, w9
  const planner = [...report.nodes].find((n) => n.job?.workflow === "Planner")!;
  near(planner.cost!.direct.dollars, p1 + c1); // its own log and its society's
  assert.equal(planner.cost!.direct.unpriced, 1); // p2
  // without prices, no cost
  assert.equal(provenanceReport(root, { jobRoots: [jobs] }).nodes.at(0)!.cost, undefined);

  const home = await pricedHome(dir.path);
  const env = { SCOUT_HOME: home };
  const tree = await runMain(["llm", "prov", root, "-J", jobs], { env, cwd: dir.path });
  assert.equal(tree.code, 0, tree.stderr);
  // s1 + p1 + c1 = 343.1e-6: two significant figures below a cent
  assert.match(tree.stdout, /^chat total=\S+ .*cost=\$0\.00034\+\? session\.chat$/m);
  assert.match(tree.stdout, /^ {2}job .*cost=\$0\.00034\+\? Planner\/ask /m);
  const component = await runMain(["llm", "prov", root, "-J", jobs, "-c"], { env, cwd: dir.path });
  assert.match(component.stdout, /^chat .*cost=\$0\.0000056\+\? session\.chat$/m); // s1
  // the page's node details carry both
  const page = join(dir.path, "p.html");
  const html = await runMain(["llm", "prov", root, "-J", jobs, "--html", page], {
    env,
    cwd: dir.path,
  });
  assert.equal(html.code, 0, html.stderr);
  assert.match(
    await Deno.readTextFile(page),
    /"label":"session\.chat",[^\n]*?"cost":\{"direct":"\$0\.0000056\+\?","subtree":"\$0\.00034\+\?"\}/,
  );
});

Deno.test("llm prov --json with prices: each node's direct and subtree cost and the run's, to 12 digits; the v1 schema holds", async () => {
  const { dir, root, jobs } = await example();
  await using _d = dir;
  const home = await pricedHome(dir.path);
  const env = { SCOUT_HOME: home };
  const j = await runMain(["llm", "prov", root, "-J", jobs, "--json"], { env, cwd: dir.path });
  assert.equal(j.code, 0, j.stderr);
  // before: no cost anywhere in the JSON, though the README promised its dollars
  const doc = ProvenanceDocument.parse(JSON.parse(j.stdout));
  // s1 5.6e-6 + p1 30e-6 + c1 307.5e-6; s2, p2, w1, w9 have no model
  assert.deepEqual(doc.totals.cost, { dollars: 0.0003431, unpriced: 4, priced: 3 });
  const [first] = doc.nodes;
  assert.deepEqual(first!.cost, {
    direct: { dollars: 0.0000056, unpriced: 1, priced: 1 },
    subtree: { dollars: 0.0003431, unpriced: 4, priced: 3 },
  });
  // every node: what the report computes, rounded
  const report = provenanceReport(root, { jobRoots: [jobs], prices: PRICES });
  const round = (c: { dollars: number; unpriced: number; priced: number }) => ({
    ...c,
    dollars: Number(c.dollars.toPrecision(12)),
  });
  assert.deepEqual(
    doc.nodes.map((n) => n.cost),
    [...report.nodes].map((n) => ({
      direct: round(n.cost!.direct),
      subtree: round(n.cost!.subtree),
    })),
  );
  // --by's groups (cost and priced, as R68-11 found the schema lacked) add up to the run's
  const by = await runMain(["llm", "prov", root, "-J", jobs, "--json", "--by", "model"], {
    env,
    cwd: dir.path,
  });
  const withRollup = ProvenanceDocument.parse(JSON.parse(by.stdout));
  const groups = withRollup.rollups![0]!.groups;
  const summed = groups.reduce((a, g) => a + (g.priced?.dollars ?? 0), 0);
  assert.equal(Number(summed.toPrecision(12)), withRollup.totals.cost!.dollars);
  assert.deepEqual(withRollup.nodes.map((n) => n.cost), doc.nodes.map((n) => n.cost));
  // the tree's total line says the same run cost
  const tree = await runMain(["llm", "prov", root, "-J", jobs], { env, cwd: dir.path });
  assert.match(tree.stdout, /\ncost: \$0\.00034 \+ \? \(4 of 7 inferences unpriced\)\n$/);
});

Deno.test("llm prov --json with prices: dollars without float noise (12 significant digits)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "etc"));
  await Deno.writeTextFile(
    join(dir.path, "etc", "prices.yaml"),
    "scripted-bakery: {input: 0.37, output: 1.1}\n",
  );
  const society = join(ROOT, "fixtures", "provenance", "society");
  const args = ["llm", "prov", join(society, "plan.chat"), "-J", join(society, "jobs"), "--json"];
  const j = await runMain(args, { env: { SCOUT_HOME: dir.path }, cwd: dir.path });
  assert.equal(j.code, 0, j.stderr);
  // 1367 prompt × $0.37 + 311 completion × $1.1 per million, summed per inference in binary
  const raw = provenanceReport(join(society, "plan.chat"), {
    jobRoots: [join(society, "jobs")],
    prices: priceTable({ "scripted-bakery": { input: 0.37, output: 1.1 } }, "p.yaml"),
  }).nodes.at(0)!.cost!.subtree.dollars;
  assert.equal(raw, 0.0008478899999999999, "the sum as computed");
  const doc = ProvenanceDocument.parse(JSON.parse(j.stdout));
  assert.equal(doc.totals.cost!.dollars, 0.00084789);
  assert.doesNotMatch(j.stdout, /\d\.\d{14,}/, "no float noise anywhere");
  const by = await runMain([...args, "--by", "agent"], {
    env: { SCOUT_HOME: dir.path },
    cwd: dir.path,
  });
  ProvenanceDocument.parse(JSON.parse(by.stdout));
  assert.doesNotMatch(by.stdout, /\d\.\d{14,}/, "nor in the groups");
});
