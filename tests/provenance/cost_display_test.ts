/**
 * How `llm prov` shows money: four decimals from $0.01 up, two significant
 * figures below (a few cheap tokens are not `$0.0000`), `cost: ?` with the
 * unpriced count when nothing has a price, and the exact dollars in `--json`.
 *
 * The chat: one gpt-5-nano inference of 10 prompt and 5 completion tokens;
 * at $0.05 / $0.40 per million that is 10×0.05e-6 + 5×0.4e-6 = $2.5e-6.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { dollarAmount } from "../../src/provenance/format.ts";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { ProvenanceDocument } from "./schema.ts";

const CHAT =
  "user: hi\n\nmeta: pt=10 ct=5 tt=15 inference_id=i1 model=gpt-5-nano backend=responses endpoint=nano\n\n" +
  "assistant: hello\n";

Deno.test("dollarAmount: four decimals from a cent up, two significant figures below", () => {
  const cases: [number, string][] = [
    [0, "0.0000"],
    [2.5e-6, "0.0000025"],
    [5.6e-6, "0.0000056"],
    [343.1e-6, "0.00034"],
    [0.0031, "0.0031"],
    [0.00999, "0.0100"], // rounds up to a cent: four decimals
    [0.00099996, "0.0010"], // rounded to two figures first: not 0.00100
    [0.0000999, "0.00010"],
    [0.01, "0.0100"],
    [0.0123456, "0.0123"],
    [12.34567, "12.3457"],
    [1500, "1500.0000"],
    [3e-30, "3.0e-30"], // far below any price: an exponent, not 31 zeros
  ];
  assert.deepEqual(cases.map(([x]) => [x, dollarAmount(x)]), cases);
});

async function setUp(prices: string | null, chat = CHAT) {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  if (prices !== null) await Deno.writeTextFile(join(home, "etc", "prices.yaml"), prices);
  await Deno.writeTextFile(join(dir.path, "s.chat"), chat);
  const run = (...args: string[]) =>
    runMain(["llm", "prov", "s.chat", ...args], {
      cwd: dir.path,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
    });
  return { dir, run };
}

Deno.test("llm prov: 15 gpt-5-nano tokens cost $0.0000025 in the tree, the table and the total; --json keeps the number", async () => {
  const { dir, run } = await setUp("gpt-5-nano: {input: 0.05, output: 0.4}\n");
  await using _d = dir;
  const tree = await run();
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /^chat total=15 .* cost=\$0\.0000025 s\.chat$/m);
  assert.match(tree.stdout, /\ncost: \$0\.0000025\n$/);
  const table = await run("--by", "model");
  assert.match(table.stdout, /^gpt-5-nano\s+1\s+10\s+5\s+15\s+0\s+0\s+0\s+\$0\.0000025$/m);
  assert.match(table.stdout, /\ncost: \$0\.0000025\n$/);
  const json = JSON.parse((await run("--by", "model", "--json")).stdout);
  const cost = json.rollups[0].groups[0].cost;
  assert.equal(typeof cost, "number");
  assert.ok(Math.abs(cost - 2.5e-6) < 1e-18, String(cost));
});

Deno.test("llm prov: when no inference has a price the total is ?, with the unpriced count", async () => {
  const { dir, run } = await setUp("claude-sonnet-4-5: {input: 3, output: 15}\n");
  await using _d = dir;
  const tree = await run();
  assert.equal(tree.code, 0, tree.stderr);
  // before: "cost: $0.0000 + ? (1 of 1 inferences unpriced)"
  assert.match(tree.stdout, /\ncost: \? \(1 of 1 inferences unpriced\)\n$/);
  assert.match(tree.stdout, /^chat .* cost=\? s\.chat$/m);
  const table = await run("--by", "model");
  assert.match(table.stdout, /\ncost: \? \(1 of 1 inferences unpriced\)\n$/);
  assert.match(table.stderr, /no price for gpt-5-nano/);
  const json = JSON.parse((await run("--by", "model", "--json")).stdout);
  assert.equal(json.rollups[0].groups[0].cost, null);
});

Deno.test("llm prov --by: a group mixing priced and unpriced inferences shows its priced part +?, and the total counts both as the tree does", async () => {
  // one agent, three models: big ($10.5e-3), gpt-5-nano ($2.5e-6), unknownm (no price)
  const meta = (id: string, model: string, pt: number, ct: number) =>
    `meta: pt=${pt} ct=${ct} tt=${pt + ct} inference_id=${id} model=${model} backend=responses\n\n`;
  const chat = "user: hi\n\n" + meta("a", "big", 1000, 500) + "assistant: one\n\nuser: more\n\n" +
    meta("b", "gpt-5-nano", 10, 5) + "assistant: two\n\nuser: last\n\n" +
    meta("c", "unknownm", 1, 1) + "assistant: three\n";
  const { dir, run } = await setUp(
    "big: {input: 3, output: 15}\ngpt-5-nano: {input: 0.05, output: 0.4}\n",
    chat,
  );
  await using _d = dir;
  const tree = await run();
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /\ncost: \$0\.0105 \+ \? \(1 of 3 inferences unpriced\)\n$/);
  const byAgent = await run("--by", "agent");
  assert.match(byAgent.stdout, /^\(root\)\s+3\s.*\$0\.0105\+\?$/m);
  assert.match(byAgent.stdout, /\ncost: \$0\.0105 \+ \? \(1 of 3 inferences unpriced\)\n$/);
  // the cost column lines its decimal points up
  const byModel = (await run("--by", "model")).stdout.split("\n");
  const dots = byModel.filter((l) => l.includes("$") && !l.startsWith("cost:")).map((l) =>
    l.lastIndexOf(".")
  );
  assert.equal(dots.length, 2, byModel.join("\n"));
  assert.equal(new Set(dots).size, 1, byModel.join("\n"));
  const json = JSON.parse((await run("--by", "agent", "--json")).stdout);
  const g = json.rollups[0].groups[0];
  assert.equal(g.cost, null); // as before: a group with an unpriced model
  assert.equal(g.priced.unpriced, 1);
  assert.ok(Math.abs(g.priced.dollars - 0.0105025) < 1e-12, String(g.priced.dollars));
});

Deno.test("llm prov: a mix whose priced part is free shows $0.0000+? in the table, the tree and the page, as its total does", async () => {
  const meta = (id: string, model: string) =>
    `meta: pt=4 ct=4 tt=8 inference_id=${id} model=${model} backend=responses\n\n`;
  const chat = "user: hi\n\n" + meta("a", "free") + "assistant: one\n\nuser: more\n\n" +
    meta("b", "unknown2") + "assistant: two\n";
  const { dir, run } = await setUp("free: {input: 0, output: 0}\n", chat);
  await using _d = dir;
  const byAgent = await run("--by", "agent");
  assert.equal(byAgent.code, 0, byAgent.stderr);
  assert.match(byAgent.stdout, /^\(root\)\s+2\s.*\$0\.0000\+\?$/m);
  assert.match(byAgent.stdout, /\ncost: \$0\.0000 \+ \? \(1 of 2 inferences unpriced\)\n$/);
  // the tree says the same of the node, and the page's table of the group
  const tree = await run();
  assert.match(tree.stdout, /^chat total=16 .* cost=\$0\.0000\+\? s\.chat$/m);
  const page = join(dir.path, "p.html");
  assert.equal((await run("--by", "agent", "--html", page)).code, 0);
  const html = await Deno.readTextFile(page);
  assert.ok(html.includes('"cost":"$0.0000+?"'), "the page's table shows the mixed cost");
});

Deno.test("llm prov --by: a model or endpoint named `unknown` is its own group, apart from the records that name none, `(none)` (R134-4)", async () => {
  const chat = "user: hi\n\n" +
    "meta: pt=500000 ct=500000 tt=1000000 inference_id=a model=unknown endpoint=unknown backend=responses\n\n" +
    "assistant: one\n\nuser: more\n\nmeta: pt=3 ct=2 tt=5 inference_id=b\n\nassistant: two\n";
  const { dir, run } = await setUp("unknown: {input: 1, output: 1}\n", chat);
  await using _d = dir;
  const byModel = await run("--by", "model");
  assert.equal(byModel.code, 0, byModel.stderr);
  // before: one group `unknown 2 … $1.0000+?`, and `no price for unknown`
  assert.match(
    byModel.stdout,
    /^unknown\s+1\s+500000\s+500000\s+1000000\s+0\s+0\s+0\s+\$1\.0000$/m,
  );
  assert.match(byModel.stdout, /^\(none\)\s+1\s+3\s+2\s+5\s+0\s+0\s+0\s+\?$/m);
  assert.doesNotMatch(byModel.stderr, /no price for/);
  assert.match(
    byModel.stderr,
    /^scout-ai: warning: 1 inference names no model \(its meta record has no model=\): cost shown as \?$/m,
  );
  const byEndpoint = await run("--by", "endpoint");
  assert.match(byEndpoint.stdout, /^unknown\s+1\s.*\$1\.0000$/m);
  assert.match(byEndpoint.stdout, /^\(none\)\s+1\s.*\?$/m);
  // the tree's warning says the same
  const tree = await run();
  assert.match(tree.stdout, /\ncost: \$1\.0000 \+ \? \(1 of 2 inferences unpriced\)\n$/);
  assert.doesNotMatch(tree.stderr, /no price for/);
  assert.match(tree.stderr, /1 inference names no model/);
  const json = JSON.parse((await run("--by", "model,endpoint", "--json")).stdout);
  ProvenanceDocument.parse(json);
  const groups = json.rollups[0].groups as { key: unknown; cost: number | null }[];
  assert.deepEqual(groups.map((g) => [g.key, g.cost]), [
    [{ model: "unknown", endpoint: "unknown" }, 1],
    [{ model: "(none)", endpoint: "(none)" }, null],
  ]);
  assert.deepEqual(json.rollups[0].unpriced, ["(none)"]);
});

Deno.test("llm prov tree: a node with no inference (of its subtree; -c: of its own) shows no cost, as it shows no tokens; a free one shows $0.0000 (R134-5)", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await Deno.mkdir(join(home, "etc"), { recursive: true });
  await Deno.writeTextFile(
    join(home, "etc", "prices.yaml"),
    "scripted-bakery: {input: 0.37, output: 1.1}\n",
  );
  const society = join(ROOT, "fixtures", "provenance", "society");
  const prov = (...args: string[]) =>
    runMain(["llm", "prov", join(society, "plan.chat"), "-J", join(society, "jobs"), ...args], {
      cwd: dir.path,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
    });
  const tree = await prov();
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /^chat total=1\.7K prompt=1\.4K cont=311 cost=\$0\.00085 plan\.chat$/m);
  // -c: the root chat and the Critic's log have no inference of their own
  const own = await prov("-c");
  assert.equal(own.code, 0, own.stderr);
  // before: `chat cost=$0.0000 plan.chat`, `chat cost=$0.0000 Critic · default`
  assert.match(own.stdout, /^chat plan\.chat$/m);
  assert.match(own.stdout, /^ {4}chat Critic · default$/m);
  assert.match(own.stdout, /^ {6}job total=192 prompt=149 cont=43 cost=\$0\.00010 Critic\/ask /m);
  assert.match(own.stdout, /\ncost: \$0\.00085\n$/);
  // no inference at all: no cost on the node; a free model's inference costs $0.0000
  const none = await setUp("free: {input: 0, output: 0}\n", "user: hi\n\nassistant: hello\n");
  await using _n = none.dir;
  assert.match((await none.run()).stdout, /^chat s\.chat$/m);
  const free = await setUp(
    "free: {input: 0, output: 0}\n",
    "user: hi\n\nmeta: pt=4 ct=4 tt=8 inference_id=f model=free\n\nassistant: hello\n",
  );
  await using _f = free.dir;
  assert.match((await free.run()).stdout, /^chat total=8 prompt=4 cont=4 cost=\$0\.0000 s\.chat$/m);
  assert.match((await free.run("-c")).stdout, /^chat total=8 .* cost=\$0\.0000 s\.chat$/m);
});

Deno.test("llm prov of no inference with a price file prints no cost line, in the tree or under --by (R143-6)", async () => {
  const { dir, run } = await setUp(
    "free: {input: 0, output: 0}\n",
    "user: hi\n\nassistant: hello\n",
  );
  await using _d = dir;
  for (const args of [[], ["-c"], ["--by", "agent"], ["--by", "model,endpoint"]]) {
    const r = await run(...args);
    assert.equal(r.code, 0, r.stderr);
    // before: a last line `cost: $0.0000`, as if something had been priced
    assert.doesNotMatch(r.stdout, /^cost:/m, `${args.join(" ")}: ${r.stdout}`);
  }
  const json = ProvenanceDocument.parse(JSON.parse((await run("--json")).stdout));
  assert.deepEqual(json.totals.cost, { dollars: 0, priced: 0, unpriced: 0 });
});
