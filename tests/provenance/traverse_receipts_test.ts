/**
 * Traversal acceptance tests (`provenance.md` §11, tests 14–18: receipts, agent jobs, what is never followed) on real
 * temp dirs; tests 1–13 are in traverse_test.ts.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import {
  provenanceChatFiles,
  provenanceChatMap,
  provenanceEdges,
  provenanceJobs,
} from "../../src/provenance/collect.ts";
import { isScoutError } from "../../src/errors.ts";
import { entry, fixtureC, meta, mkJob, opts, rc, recorder, rows, tmp, write } from "./support.ts";

Deno.test("14: fixture C edges, chat nodes, agent_job records and first visits", async () => {
  await using d = await tmp();
  const { parent, c, w, dep } = fixtureC(d.path);
  const o = opts(d.path);
  assert.deepEqual(rows(traverseProvenance(parent, o), d.path), [
    [null, "chat", "parent.chat", true],
    ["job", "job", "jobs/Agents/critic/c", true],
    ["agent_job", "job", "jobs/Agents/worker/w", true],
    ["dependency", "job", "jobs/Agents/dep/1", true],
    ["log", "chat", "jobs/Agents/worker/w.files/log/agent.chat", true],
    ["agent_job", "job", "jobs/Agents/critic/c", false],
  ]);
  const edges = provenanceEdges(parent, o);
  assert.deepEqual(edges.map((e) => [e.relation, e.from, e.to]), [
    ["job", parent, c],
    ["agent_job", parent, w],
    ["dependency", w, dep],
    ["log", w, w + ".files/log/agent.chat"],
    ["agent_job", w + ".files/log/agent.chat", c],
  ]);
  const detail = edges[1]!.detail!;
  assert.equal(detail.callId, "p1");
  assert.equal(detail.toolName, "ask");
  assert.equal(detail.job, "Agents/worker/w");
  assert.deepEqual(detail.evidenceAddress, [parent, 3, "agent_meta", 1]);
  assert.deepEqual(provenanceChatFiles(parent, o), [parent, w + ".files/log/agent.chat"]);
  assert.deepEqual(provenanceChatMap(parent, o), { [w]: [w + ".files/log/agent.chat"] });
  const firsts = [...traverseProvenance(parent, o)].filter((r) => r.firstVisit);
  assert.equal(new Set(firsts.map((r) => r.kind + r.node.path)).size, firsts.length);
  // a receipt cycle back to the worker terminates
  write(
    w + ".files/log/round-2/agent.chat",
    rc({ back: [entry("job=Agents/worker/w")] }),
  );
  const again = rows(traverseProvenance(parent, o), d.path);
  assert.deepEqual(again.at(-1), ["agent_job", "job", "jobs/Agents/worker/w", false]);
});

Deno.test("15: malformed receipts are reported with their addresses and skipped", async () => {
  await using d = await tmp();
  const chat = write(
    join(d.path, "e.chat"),
    rc({
      b1: "not-an-array",
      b2: [{ role: "assistant", content: "pt=1 tt=2" }, entry("no pairs")],
      b3: [entry("none here")],
    }),
  );
  const rec = recorder();
  const recs = [...traverseProvenance(chat, { ...opts(d.path), onError: rec.onError })];
  assert.equal(recs.length, 1);
  assert.deepEqual(
    rec.errors.map((e) => [e.error.reason, e.kind, e.relation]),
    [
      ["not_an_array", "chat", "agent_job"],
      ["invalid_role", "chat", "agent_job"],
      ["unparseable_meta", "chat", "agent_job"],
      ["unparseable_meta", "chat", "agent_job"],
    ],
  );
  const first = rec.errors[0]!.reference as Record<string, unknown>;
  assert.deepEqual(first.outputAddress, [chat, 3]);
  assert.equal(first.evidenceAddress, null);
  assert.equal(first.agentMetaIndex, null);
  assert.equal(first.rawEntry, "not-an-array");
  const second = rec.errors[1]!.reference as Record<string, unknown>;
  assert.deepEqual(second.evidenceAddress, [chat, 5, "agent_meta", 0]);
  assert.throws(
    () => [...traverseProvenance(chat, opts(d.path))],
    (e: unknown) => isScoutError(e, "receipt_problem") && e.message.includes("not_an_array"),
  );
});

Deno.test("receipt problem errors end with the raw reference (agent_meta not an array → reference <value>)", async () => {
  await using d = await tmp();
  const chat = write(join(d.path, "oops.chat"), rc({ b1: "oops" }));
  const errors: Error[] = [];
  [...traverseProvenance(chat, { ...opts(d.path), onError: (e) => errors.push(e) })];
  assert.equal(errors.length, 1);
  assert.match(
    errors[0]!.message,
    /agent_meta receipt not_an_array in chat .*oops\.chat .*\(call b1, tool ask\) reference oops$/,
  );
  assert.throws(
    () => [...traverseProvenance(chat, opts(d.path))],
    (e: unknown) => isScoutError(e, "receipt_problem") && e.message.endsWith(" reference oops"),
  );
});

Deno.test("16: non-JSON outputs mentioning agent_meta are not receipts, even strict", async () => {
  await using d = await tmp();
  const chat = write(
    join(d.path, "t.chat"),
    'user: q\n\nfunction_call: {"name":"sh","arguments":{},"id":"x1"}\n\n' +
      'function_call_output: the "agent_meta": [broken json here\n\n' +
      'function_call_output: ["agent_meta"]\n\nassistant: ok\n',
  );
  assert.equal([...traverseProvenance(chat, opts(d.path))].length, 1);
});

Deno.test("17: an unresolved receipt job is one problem; a neighbouring marker still expands", async () => {
  await using d = await tmp();
  const job = mkJob(join(d.path, "jobs/Wf/t/Here"));
  const chat = write(
    join(d.path, "u.chat"),
    rc({ a1: [entry("pt=1 tt=2 job=Gone/ask/Nope")] }, [meta("job=Wf/t/Here")]),
  );
  const rec = recorder();
  const recs = [...traverseProvenance(chat, { ...opts(d.path), onError: rec.onError })];
  assert.deepEqual(recs.map((r) => r.node.path), [chat, job]);
  assert.equal(rec.errors.length, 1);
  const p = rec.errors[0]!.reference as Record<string, unknown>;
  assert.equal(p.reason, "unresolved_job_reference");
  assert.equal(p.reference, "Gone/ask/Nope");
  assert.deepEqual(p.evidenceAddress, [chat, 3, "agent_meta", 0]);
  assert.equal(p.callId, "a1");
  assert.equal(p.toolName, "ask");
  assert.throws(
    () => [...traverseProvenance(chat, opts(d.path))],
    (e: unknown) =>
      isScoutError(e, "unresolved_job_reference") &&
      e.message.includes("unresolved_job_reference") &&
      e.message.includes(chat) && e.message.includes("Gone/ask/Nope"),
  );
});

Deno.test("18: two receipts naming one job are two edges and two records", async () => {
  await using d = await tmp();
  const job = mkJob(join(d.path, "jobs/Wf/ask/W"));
  const chat = write(
    join(d.path, "two.chat"),
    rc({ a1: [entry("job=Wf/ask/W")], a2: [entry("job=Wf/ask/W")] }),
  );
  const o = opts(d.path);
  const edges = provenanceEdges(chat, o);
  assert.equal(edges.length, 2);
  assert.deepEqual(edges.map((e) => e.detail!.callId), ["a1", "a2"]);
  assert.notDeepEqual(edges[0]!.detail!.evidenceAddress, edges[1]!.detail!.evidenceAddress);
  assert.deepEqual(provenanceJobs(chat, o).map((j) => j.path), [job]);
  const recs = [...traverseProvenance(chat, o)].filter((r) => r.kind === "job");
  assert.deepEqual(recs.map((r) => r.firstVisit), [true, false]);
});

Deno.test("inspection runs nothing: exec_task/task/import/file lines are inert", async () => {
  await using d = await tmp();
  const fifo = join(d.path, "never.fifo");
  const mk = new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
  assert.equal(mk.code, 0);
  const chat = write(
    join(d.path, "inert.chat"),
    `exec_task: Wf sh --cmd=rm\n\ntask: Wf run\n\nimport: ${fifo}\n\nfile: ${fifo}\n\n` +
      `directory: ${d.path}\n\nuser: go\n`,
  );
  // Opening the fifo for reading would block this (synchronous) walk forever.
  const recs = [...traverseProvenance(chat, opts(d.path))];
  assert.equal(recs.length, 1);
});

Deno.test("job= references outside every job root are unresolved, never followed (absolute, ..)", async () => {
  await using d = await tmp();
  const inside = mkJob(join(d.path, "jobs/Wf/t/In"));
  const outside = mkJob(join(d.path, "elsewhere/Wf/t/Out"));
  const chat = write(
    join(d.path, "a.chat"),
    rc({ r1: [entry(`job=${outside}`)] }, [
      meta(`job=${outside}`), // absolute, outside the roots
      meta("job=jobs/../elsewhere/Wf/t/Out"), // `..` climbs out of the store
      meta("job=Wf/t/In"),
    ]),
  );
  const rec = recorder();
  const recs = [...traverseProvenance(chat, { ...opts(d.path), onError: rec.onError })];
  assert.deepEqual(recs.map((r) => r.node.path), [chat, inside]);
  assert.deepEqual(
    rec.errors.map((e) => [e.error.code, e.relation]),
    [
      ["unresolved_job_reference", "job"],
      ["unresolved_job_reference", "job"],
      ["unresolved_job_reference", "agent_job"],
    ],
  );
  for (const e of rec.errors) {
    assert.ok(e.error.message.includes("outside every job root"), e.error.message);
  }
  assert.equal(rec.errors[1]!.reference, "jobs/../elsewhere/Wf/t/Out", "the raw reference");
  assert.ok(rec.errors[2]!.error.message.endsWith(` reference ${outside}`));
  assert.throws(
    () => [...traverseProvenance(chat, opts(d.path))],
    (e: unknown) => isScoutError(e, "unresolved_job_reference"),
  );
});

Deno.test("a path is a job only with .info or .files; a bare file is an unresolved reference", async () => {
  await using d = await tmp();
  write(join(d.path, "jobs/Wf/t/Bare"), "not a job\n"); // a result file alone
  mkdirSync(join(d.path, "jobs/Wf/t/Files.files"), { recursive: true }); // no result, no info
  const info = join(d.path, "jobs/Wf/t/Info");
  write(info + ".info", JSON.stringify({ status: "error" }));
  const chat = write(
    join(d.path, "a.chat"),
    "user: q\n\nmeta: job=Wf/t/Bare\n\nmeta: job=Wf/t/Files\n\nmeta: job=Wf/t/Info\n",
  );
  const rec = recorder();
  const recs = [...traverseProvenance(chat, { ...opts(d.path), onError: rec.onError })];
  assert.deepEqual(recs.map((r) => r.node.path), [chat, join(d.path, "jobs/Wf/t/Files"), info]);
  assert.deepEqual(rec.errors.map((e) => [e.error.code, e.reference]), [
    ["unresolved_job_reference", "Wf/t/Bare"],
  ]);
  assert.ok(rec.errors[0]!.error.message.includes("does not resolve to a job"));
});
