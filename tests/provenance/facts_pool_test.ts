/**
 * Reading chats ahead on a helper thread (`facts_pool.ts`, issue 5) changes
 * nothing but time: the same records, the same facts in the same order, the
 * same report, whichever thread read which chat; unreadable chats are still
 * reported by the walk; `onChat` still gets every chat's messages.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { walkProvenance } from "../../src/provenance/traverse.ts";
import { provenanceReport } from "../../src/provenance/report.ts";
import { provenanceJson } from "../../src/provenance/json.ts";
import { renderTree } from "../../src/provenance/render_tree.ts";
import type { ChatFacts } from "../../src/provenance/chat_facts.ts";
import { factsFromText, factsToText, readChatFacts } from "../../src/provenance/chat_facts.ts";
import { chatReader, READ_AHEAD } from "../../src/provenance/facts_pool.ts";
import type { LoadedChat, TraverseOptions } from "../../src/provenance/types.ts";
import { isScoutError } from "../../src/errors.ts";
import { generateStore } from "../../bench/prov_store.ts";
import { ROOT } from "../support/cli.ts";
import { tmp, write } from "./support.ts";

/** Everything a walk hands out, as comparable data: records and facts, in order. */
function walkData(root: string, o: TraverseOptions & { helperThreshold: number }) {
  const facts: ChatFacts[] = [];
  const errors: unknown[] = [];
  const records = [
    ...walkProvenance(root, {
      ...o,
      onError: (e) => errors.push([e.code, e.message]),
      onFacts: (f) => facts.push(f),
    }),
  ].map((r) => [r.relation, r.kind, r.node.path, r.parent?.path ?? null, r.firstVisit, r.detail]);
  return { records, facts, errors };
}

Deno.test("a helper thread gives the same walk and report as reading on the walk's thread", async () => {
  await using d = await tmp();
  const store = await generateStore(d.path, { scale: 0.02, seed: 5 });
  assert.ok(store.chats > 150, `only ${store.chats} chats`);
  const o = { cwd: d.path, jobRoots: [store.jobsDir] };
  const alone = walkData(store.root, { ...o, helperThreshold: Infinity });
  const helped = walkData(store.root, { ...o, helperThreshold: 0 });
  assert.equal(helped.facts.length, store.chats);
  assert.deepEqual(helped.records, alone.records);
  assert.deepEqual(helped.facts, alone.facts);
  assert.deepEqual(helped.errors, alone.errors);

  const a = provenanceReport(store.root, { ...o, helperThreshold: Infinity });
  const b = provenanceReport(store.root, { ...o, helperThreshold: 0 });
  assert.equal(JSON.stringify(provenanceJson(b)), JSON.stringify(provenanceJson(a)));
  assert.equal(renderTree(b, {}), renderTree(a, {}));
});

Deno.test("with a helper, problems are the same on every error fixture", () => {
  const fixtures = join(ROOT, "fixtures/provenance/errors");
  const cases: { name: string; root: string; rootType?: "chat" | "job" }[] = JSON.parse(
    readFileSync(join(fixtures, "cases.json"), "utf8"),
  );
  for (const c of cases) {
    const dir = join(fixtures, c.name);
    const o = { cwd: dir, jobRoots: [join(dir, "jobs")], rootType: c.rootType };
    const root = join(dir, c.root);
    const alone = walkData(root, { ...o, helperThreshold: Infinity });
    const helped = walkData(root, { ...o, helperThreshold: 0 });
    assert.deepEqual(helped, alone, c.name);
    const a = provenanceReport(root, { ...o, helperThreshold: Infinity });
    const b = provenanceReport(root, { ...o, helperThreshold: 0 });
    assert.deepEqual(provenanceJson(b), provenanceJson(a), c.name);
  }
});

Deno.test("a queued chat the helper cannot read is read, and reported, by the walk", async () => {
  await using d = await tmp();
  const chats = Array.from(
    { length: 40 },
    (_, i) => write(join(d.path, `c${i}.chat`), `user: q${i}\n\nmeta: pt=${i} tt=${i}\n`),
  );
  const missing = join(d.path, "gone.chat");
  const queue = [...chats.slice(0, 20), missing, ...chats.slice(20)];
  const reader = chatReader({ agentJob: true, helperThreshold: 0 });
  try {
    for (const p of queue) reader.discovered(p);
    for (const p of queue) {
      if (p === missing) {
        assert.throws(() => reader.read(p), (e: unknown) => {
          assert.ok(isScoutError(e, "not_found"), String(e));
          assert.equal(e.file, missing);
          return true;
        });
      } else {
        assert.deepEqual(reader.read(p), readChatFacts(p));
      }
    }
  } finally {
    reader.close();
  }
});

Deno.test("helpers read at most READ_AHEAD chats past the one the walk needs (issue 16)", async () => {
  await using d = await tmp();
  const chats = Array.from(
    { length: READ_AHEAD * 4 },
    (_, i) => write(join(d.path, `c${i}.chat`), `user: q${i}\n\nmeta: pt=${i} tt=${i}\n`),
  );
  const reader = chatReader({ agentJob: true, helperThreshold: 0 });
  try {
    for (const p of chats) reader.discovered(p);
    reader.flush();
    assert.deepEqual(reader.read(chats[0]!), readChatFacts(chats[0]!));
    // The helper reads ahead as far as it may (unbounded, it read all 2,047). Wait until it got
    // there, however long a busy machine makes that (a fixed second was once too short).
    const deadline = Date.now() + 20_000;
    while (reader.readAhead() < READ_AHEAD && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 10));
    }
    // A helper past the limit would read on: give it the time to show it. (This wait can only
    // make the test fail; a helper within the limit has nothing left to read.)
    await new Promise((done) => setTimeout(done, 200));
    assert.equal(reader.readAhead(), READ_AHEAD, "chats read ahead while the walk stood still");
    // Then the files go: what the walk still gets was read ahead.
    for (const p of chats) Deno.removeSync(p);
    let readAhead = 0;
    for (const p of chats.slice(1)) {
      try {
        assert.deepEqual(reader.read(p).path, p);
        readAhead++;
      } catch (e) {
        assert.ok(isScoutError(e, "not_found"), String(e));
      }
    }
    assert.equal(readAhead, READ_AHEAD, "chats the walk got after their files were gone");
  } finally {
    reader.close();
  }
});

Deno.test("onChat gets every chat's messages, and no helper is started for it", async () => {
  await using d = await tmp();
  const store = await generateStore(d.path, { scale: 0.01, seed: 2 });
  const seen: LoadedChat[] = [];
  const facts: ChatFacts[] = [];
  for (
    const _ of walkProvenance(store.root, {
      cwd: d.path,
      jobRoots: [store.jobsDir],
      helperThreshold: 0,
      onChat: (c) => seen.push(c),
      onFacts: (f) => facts.push(f),
    })
  ) { /* walk */ }
  assert.equal(seen.length, store.chats);
  assert.deepEqual(seen.map((c) => c.path), facts.map((f) => f.path));
  assert.ok(seen.every((c) => c.messages.length > 0 && c.receipts !== null));
});

Deno.test("a walk abandoned early stops its helper", async () => {
  await using d = await tmp();
  const store = await generateStore(d.path, { scale: 0.01, seed: 4 });
  let n = 0;
  for (
    const _ of walkProvenance(store.root, {
      cwd: d.path,
      jobRoots: [store.jobsDir],
      helperThreshold: 0,
    })
  ) {
    if (++n === 30) break;
  }
  assert.equal(n, 30);
});

Deno.test("facts sent as text between threads read back deep-equal, one path string per file", async () => {
  await using d = await tmp();
  const out = JSON.stringify({
    name: "ask",
    content: "ok",
    id: "c1",
    agent_meta: [
      { role: "meta", content: "pt=5 tt=6 inference_id=r1" },
      { role: "meta", content: "job=W/ask/Default_x.chat" },
      "not a hash",
    ],
  });
  const path = write(
    join(d.path, "s.chat"),
    [
      "user: hi",
      'meta: pt=1 ct=2 tt=3 inference_id=i1 reas="why"',
      "assistant: a",
      "meta: pt=-0 tt=1.5", // no inference_id: a lineage id
      "meta: job=W/ask/Default_y.chat",
      'function_call: {"name":"ask","arguments":{},"id":"c1"}',
      `function_call_output: ${out}`,
      "",
    ].join("\n\n"),
  );
  const facts = readChatFacts(path);
  assert.ok(facts.evidence.lineage !== null && facts.evidence.receipts.length === 1);
  assert.equal(facts.receiptJobs.length, 1);
  assert.equal(facts.evidence.receiptProblems.length, 1);
  const back = factsFromText(path, factsToText(facts));
  // -0 travels as 0 (JSON), the one difference; it prints the same.
  facts.evidence.chat[1]!.meta.pt = 0;
  assert.deepEqual(back, facts);
  for (const item of back.evidence.chat) {
    assert.equal(item.source, path);
    assert.equal(item.metaAddress[0], path);
  }
});
