/**
 * `llm prov ROOT…` (R134-1): several roots explained together, in one walk,
 * so an inference two roots share is counted once. A cache replay is the
 * common case: the replayed chat's meta record is the live one's, byte for
 * byte (same `inference_id`), so one root alone counts it as paid, and only
 * the roots together can count it once. Built with the loopback provider
 * (a live ask, a cache hit, an `--offline` replay) and checked on the
 * recorded society fixture, whose society logs share inferences with the
 * receipts their callers kept.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { ROOT, runMain } from "../support/cli.ts";
import { scoutBash } from "../support/scout_bash.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import { ProvenanceDocument } from "./schema.ts";
import { tmp } from "./support.ts";

/** Dollars per million tokens: one inference of 1000 prompt + 200 output tokens costs $0.0018. */
const PRICES = "test-model:\n  input: 1.0\n  output: 4.0\n";
const TOKENS = { pt: 1000, ct: 200, tt: 1200, cct: 0, cwt: 0, rt: 0 };

/**
 * `logs/c1.chat` asked live, `logs/c2.chat` the same question from the
 * inference cache, `logs/c3.chat` the same `--offline`: one inference, three
 * copies of its record. Returns the env (`SCOUT_HOME` is `<dir>/home`, as
 * `scoutBash` sets it).
 */
async function replayStore(dir: string): Promise<Record<string, string>> {
  await using srv = await startProviderServer({
    fallback: () => ({ text: "Answer one.", usage: { pt: 1000, ct: 200 } }),
  });
  const home = join(dir, "home");
  mkdirSync(join(home, "etc", "AI"), { recursive: true });
  mkdirSync(join(dir, "logs"));
  writeFileSync(
    join(home, "etc", "AI", "nano.yaml"),
    `backend: openai\nurl: ${srv.url}\nmodel: test-model\n`,
  );
  writeFileSync(join(home, "etc", "prices.yaml"), PRICES);
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x", NO_COLOR: "1" };
  for (const [file, extra] of [["c1", []], ["c2", []], ["c3", ["--offline"]]] as const) {
    const r = await runMain(
      ["llm", "ask", "-e", "nano", ...extra, "-o", `logs/${file}.chat`, "Question one"],
      { env, cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
  }
  assert.equal(srv.requests.length, 1, "c2 and c3 come from the inference cache");
  const record = (f: string) => Deno.readTextFileSync(join(dir, "logs", f)).split("\n\n")[2];
  assert.equal(record("c2.chat"), record("c1.chat")); // the replayed record is the live one
  return env;
}

Deno.test("llm prov ROOT…: a cache replay in three roots is counted once, in tokens and dollars", async () => {
  await using d = await tmp();
  const env = await replayStore(d.path);
  const prov = (...args: string[]) => runMain(["llm", "prov", ...args], { env, cwd: d.path });
  // one root alone counts the replay as paid: its record is the live one's
  const alone = await prov("logs/c2.chat", "--json");
  assert.equal(alone.code, 0, alone.stderr);
  const one = JSON.parse(alone.stdout);
  assert.equal(one.roots, undefined); // one root's document is as it was
  assert.deepEqual(one.totals.cost, { dollars: 0.0018, unpriced: 0, priced: 1 });
  assert.equal(one.events[0].cost, 0.0018); // each event's cost, with prices
  ProvenanceDocument.parse(one);

  const r = await prov("logs/c1.chat", "logs/c2.chat", "logs/c3.chat", "--json");
  assert.equal(r.code, 0, r.stderr); // before: exit 2, "too many arguments for 'prov'"
  const doc = ProvenanceDocument.parse(JSON.parse(r.stdout));
  const ids = ["c1", "c2", "c3"].map((c) => `chat:${join(d.path, "logs", `${c}.chat`)}`);
  assert.equal(doc.root, ids[0]);
  assert.deepEqual(doc.roots, ids);
  assert.deepEqual(doc.totals.deduplicated_total, TOKENS); // once, not 3 × 1200
  assert.deepEqual(doc.totals.cost, { dollars: 0.0018, unpriced: 0, priced: 1 });
  assert.equal(doc.events.length, 1);
  assert.equal(doc.events[0]!.evidence.length, 3); // the three copies, one inference
  assert.equal(doc.events[0]!.cost, 0.0018);
  // each root's own subtree still counts it (what that root alone says)
  for (const id of ids) {
    assert.equal(doc.nodes.find((n) => n.id === id)!.tokens.subtree.tt, 1200);
  }

  const tree = await prov("logs/c1.chat", "logs/c2.chat", "logs/c3.chat");
  assert.equal(tree.code, 0, tree.stderr);
  assert.equal(
    tree.stdout,
    "chat total=1.2K prompt=1K cont=200 cost=$0.0018 c1.chat\n" +
      "chat total=1.2K prompt=1K cont=200 cost=$0.0018 c2.chat\n" +
      "chat total=1.2K prompt=1K cont=200 cost=$0.0018 c3.chat\n" +
      "together total=1.2K prompt=1K cont=200 (3 roots, each inference once)\n" +
      "cost: $0.0018\n",
  );
  const by = await prov("logs/c1.chat", "logs/c2.chat", "logs/c3.chat", "--by", "model");
  assert.match(by.stdout, /^test-model +1 +1000 +200 +1200 .*\$0\.0018$/m);
});

Deno.test("llm prov logs/*.chat: the shell's glob gives the roots, totals once", async () => {
  await using d = await tmp();
  await replayStore(d.path);
  const r = await scoutBash(
    "scout llm prov logs/*.chat --json | jq -c '[(.roots | length), .totals.deduplicated_total.tt, .totals.cost.dollars]'; echo rc=${PIPESTATUS[0]}",
    d.path,
  );
  assert.equal(r.stdout, "[3,1200,0.0018]\nrc=0\n", r.stderr);
});

const SOCIETY = join(ROOT, "fixtures", "provenance", "society");
const LOG = "jobs/Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/society";
const FACTS = `${LOG}/Researcher/facts.chat`;
const LIBRARIAN = `${LOG}/Researcher/facts/society/Librarian/_oneshot-1.chat`;
const CRITIC = "jobs/Critic/ask/Default_7306c721a4a0b9b93a429f47ef56241b.chat";

Deno.test("llm prov ROOT…: society roots that share an inference count it once (hand-computed)", async () => {
  // facts.chat: its own 4 inferences (116+124+136+162) and the Librarian's (128, its
  // receipt); _oneshot-1.chat: that same Librarian inference; the Critic job: 192
  const prov = (...args: string[]) =>
    runMain(["llm", "prov", ...args, "-J", "jobs"], { cwd: SOCIETY, env: { NO_COLOR: "1" } });
  const r = await prov(FACTS, LIBRARIAN, CRITIC, "--json");
  assert.equal(r.code, 0, r.stderr);
  const doc = ProvenanceDocument.parse(JSON.parse(r.stdout));
  assert.equal(doc.roots!.length, 3);
  // 103+107+113+131+109 + 149, 13+17+23+31+19 + 43: the Librarian's 128 once, not twice (986)
  assert.deepEqual(doc.totals.deduplicated_total, {
    pt: 712,
    ct: 146,
    tt: 858,
    cct: 0,
    cwt: 0,
    rt: 0,
  });
  assert.equal(doc.events.length, 6);
  const own = doc.roots!.map((id) => doc.nodes.find((n) => n.id === id)!.tokens.subtree.tt);
  assert.deepEqual(own, [666, 128, 192]);
  const tree = await prov(FACTS, LIBRARIAN, CRITIC);
  assert.equal(
    tree.stdout,
    "chat total=666 prompt=563 cont=103 facts.chat\n" +
      "  delegated receipt: 1 events, total=128, ask\n" +
      "chat total=128 prompt=109 cont=19 _oneshot-1.chat\n" +
      "job total=192 prompt=149 cont=43 Critic/ask 7306c721\n" +
      "together total=858 prompt=712 cont=146 (3 roots, each inference once)\n",
  );
  // a root inside another's subtree adds nothing: plan.chat already reaches the Critic job
  const whole = JSON.parse((await prov("plan.chat", "--json")).stdout).totals;
  const both = JSON.parse((await prov("plan.chat", CRITIC, "--json")).stdout).totals;
  assert.deepEqual(both.deduplicated_total, whole.deduplicated_total);
  // the same root twice is one root: the one-root output, byte for byte
  const once = await prov("plan.chat");
  assert.equal((await prov("plan.chat", "./plan.chat")).stdout, once.stdout);
  assert.doesNotMatch(once.stdout, /^together /m);
});

Deno.test("llm prov ROOT…: a bad root among several is named; stdin among them is refused", async () => {
  const prov = (...args: string[]) =>
    runMain(["llm", "prov", ...args, "-J", "jobs"], { cwd: SOCIETY, env: { NO_COLOR: "1" } });
  const missing = await prov("plan.chat", "nope.chat", CRITIC);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^scout-ai: Chat not found: nope\.chat$/m);
  assert.equal(missing.stdout, "");
  const dir = await prov("plan.chat", "jobs");
  assert.equal(dir.code, 1);
  assert.match(dir.stderr, /jobs is a directory; llm prov takes a chat file or a job path/);
  const stdin = await prov("plan.chat", "-");
  assert.equal(stdin.code, 2);
  assert.match(stdin.stderr, /prov needs a file: a chat read from stdin/);
});

Deno.test("llm prov ROOT…: --flow, --dot, --tools and --html cover every root", async () => {
  await using d = await tmp();
  const prov = (...args: string[]) =>
    runMain(["llm", "prov", FACTS, CRITIC, ...args, "-J", "jobs"], {
      cwd: SOCIETY,
      env: { NO_COLOR: "1", SCOUT_HOME: join(d.path, "home") },
    });
  const flow = await prov("--flow");
  assert.equal(flow.code, 0, flow.stderr);
  assert.match(flow.stdout, /Chat .*facts\.chat +666 /);
  assert.match(flow.stdout, /Job +Critic\/ask 7306c721 +192 /);
  const dot = await prov("--dot", "-");
  assert.match(dot.stdout, /Researcher|facts\.chat/);
  assert.match(dot.stdout, /Critic\/ask 7306c721/);
  const tools = await prov("--tools", "--json");
  assert.equal(tools.code, 0, tools.stderr);
  const t = JSON.parse(tools.stdout);
  assert.deepEqual(t.roots, [join(SOCIETY, FACTS), join(SOCIETY, CRITIC)]);
  assert.equal(t.root, join(SOCIETY, FACTS));
  const page = join(d.path, "p.html");
  const html = await prov("--html", page);
  assert.equal(html.code, 0, html.stderr);
  assert.match(
    Deno.readTextFileSync(page),
    /<title>Provenance of 2 roots: [^<]*facts\.chat and 1 more</,
  );
});

Deno.test("traverseProvenance(roots): one walk; each root first, a shared node expanded once", () => {
  const plan = join(SOCIETY, "plan.chat");
  const critic = { kind: "job" as const, path: join(SOCIETY, CRITIC), info: null };
  const records = [
    ...traverseProvenance([plan, critic], { cwd: SOCIETY, jobRoots: [join(SOCIETY, "jobs")] }),
  ];
  assert.deepEqual(
    records.slice(0, 2).map((r) => [r.kind, r.node.path, r.parent, r.firstVisit]),
    [["chat", plan, null, true], ["job", critic.path, null, true]],
  );
  // plan.chat reaches the Critic job too: those records are repeats, never expanded again
  const criticRecords = records.filter((r) => r.node.path === critic.path && r.kind === "job");
  assert.ok(criticRecords.length > 1);
  assert.deepEqual(criticRecords.map((r) => r.firstVisit), [
    true,
    ...criticRecords.slice(1).map(() => false),
  ]);
  const firsts = new Map<string, number>();
  for (const r of records.filter((r) => r.firstVisit)) {
    const id = `${r.kind}:${r.node.path}`;
    firsts.set(id, (firsts.get(id) ?? 0) + 1);
  }
  assert.ok([...firsts.values()].every((n) => n === 1));
});

Deno.test("llm prov ROOT…: a root printed in an earlier root's tree keeps its own total on its (seen) line (R138-3)", async () => {
  const example = join(ROOT, "fixtures", "provenance", "example");
  const job = join(example, "jobs", "Planner", "ask", "Default_a1b2c3d4e5.chat");
  const r = await runMain([
    "llm",
    "prov",
    join(example, "session.chat"),
    job,
    "-J",
    join(example, "jobs"),
  ], { env: { NO_COLOR: "1" } });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  // the job is printed inside session.chat's tree; as the second root it is seen, with its total
  assert.equal(lines.at(-2), "job total=608 prompt=500 cont=108 Planner/ask a1b2c3d4 (seen)");
  assert.match(lines.at(-1)!, /^together total=918 .*\(2 roots, each inference once\)$/);
  // a node seen inside a tree stays a bare reference
  assert.ok(lines.slice(0, -2).every((l) => !/^ .*total=.*\(seen\)$/.test(l)), r.stdout);
});
