/**
 * Traversal acceptance tests (`provenance.md` §11, tests 1–18) on real temp dirs.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PROVENANCE_RELATIONS } from "../../src/provenance/types.ts";
import { traverseProvenance } from "../../src/provenance/traverse.ts";
import { provenanceJobs } from "../../src/provenance/collect.ts";
import { compareBytes } from "../../src/provenance/paths.ts";
import { isScoutError } from "../../src/errors.ts";
import {
  entry,
  fixtureC,
  mkJob,
  openDir,
  opts,
  rc,
  recorder,
  rows,
  runUnprivileged,
  tmp,
  write,
} from "./support.ts";

Deno.test("1: a chat without references gives one root record", async () => {
  await using d = await tmp();
  const chat = write(join(d.path, "a.chat"), "user: hi\n\nassistant: hello\n");
  const recs = [...traverseProvenance(chat, opts(d.path))];
  assert.equal(recs.length, 1);
  assert.deepEqual(recs[0], {
    kind: "chat",
    node: { kind: "chat", path: chat },
    parentKind: null,
    parent: null,
    relation: null,
    firstVisit: true,
    detail: null,
  });
});

Deno.test("2: import/continue/last and job: role lines are not followed; relation list", async () => {
  await using d = await tmp();
  write(join(d.path, "other.chat"), "user: imported\n");
  mkJob(join(d.path, "jobs/Wf/task/Name"));
  const chat = write(
    join(d.path, "a.chat"),
    "import: other.chat\n\ncontinue: missing.chat\n\nlast: other.chat\n\njob: Wf/task/Name\n\nuser: hi\n",
  );
  // strict (no onError): any report would throw
  const recs = [...traverseProvenance(chat, opts(d.path))];
  assert.equal(recs.length, 1);
  assert.equal(PROVENANCE_RELATIONS.join(), "job,dependency,log,result,agent_job,attempt");
});

Deno.test("3: a relative meta job= marker resolves via job roots and the job expands", async () => {
  await using d = await tmp();
  mkJob(join(d.path, "jobs/Wf/task/Name"), null, { "agent.chat": "user: q\n" });
  const chat = write(join(d.path, "a.chat"), "user: q\n\nmeta: job=Wf/task/Name\n\nassistant: a\n");
  assert.deepEqual(rows(traverseProvenance(chat, opts(d.path)), d.path), [
    [null, "chat", "a.chat", true],
    ["job", "job", "jobs/Wf/task/Name", true],
    ["log", "chat", "jobs/Wf/task/Name.files/log/agent.chat", true],
  ]);
});

Deno.test("4: log tree: regular .chat files only, hidden names skipped, byte order", async () => {
  await using d = await tmp();
  const job = mkJob(join(d.path, "jobs/Wf/task/J"), null, {
    "society/W/x.chat": "user: a\n",
    "r1/agent.chat": "user: b\n",
    "agent.chat": "user: c\n",
    ".h/z.chat": "user: hidden\n",
    ".dot.chat": "user: hidden\n",
  });
  mkdirSync(join(job + ".files/log/d.chat"));
  const recs = [...traverseProvenance(job, opts(d.path, { rootType: "job" }))];
  const logs = recs.filter((r) => r.relation === "log").map((r) => r.node.path.slice(job.length));
  assert.deepEqual(logs, [
    ".files/log/agent.chat",
    ".files/log/r1/agent.chat",
    ".files/log/society/W/x.chat",
  ]);
});

Deno.test("4b: byte order puts astral characters after U+E000–U+FFFF", () => {
  const names = ["\u{1F600}.chat", "\uFF21.chat", "a.chat"];
  assert.deepEqual([...names].sort(compareBytes), ["a.chat", "\uFF21.chat", "\u{1F600}.chat"]);
  const bytes = [...names].sort((a, b) =>
    Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))
  );
  assert.deepEqual([...names].sort(compareBytes), bytes);
});

Deno.test("5: a chat-typed dependency gets a result edge, a text-typed one does not", async () => {
  await using d = await tmp();
  const c = mkJob(join(d.path, "jobs/Wf/chatty/C.chat"), null, {}, { type: "chat" }, "\nuser: x\n");
  const t = mkJob(join(d.path, "jobs/Wf/texty/T"), null, {}, { type: "text" });
  const p = mkJob(join(d.path, "jobs/Wf/top/P"), [c, t]);
  const r = rows(traverseProvenance(p, opts(d.path, { rootType: "job" })), d.path);
  assert.deepEqual(r, [
    [null, "job", "jobs/Wf/top/P", true],
    ["dependency", "job", "jobs/Wf/chatty/C.chat", true],
    ["dependency", "job", "jobs/Wf/texty/T", true],
    ["result", "chat", "jobs/Wf/chatty/C.chat", true],
  ]);
});

Deno.test("6: a shared dependency is yielded twice, expanded once, listed once", async () => {
  await using d = await tmp();
  const s = mkJob(join(d.path, "jobs/D/load/S"), null, { "agent.chat": "user: s\n" });
  const a = mkJob(join(d.path, "jobs/D/filter/A"), [s]);
  const p = mkJob(join(d.path, "jobs/D/top/P"), [a, s]);
  const o = opts(d.path, { rootType: "job" });
  const r = rows(traverseProvenance(p, o), d.path);
  assert.deepEqual(r, [
    [null, "job", "jobs/D/top/P", true],
    ["dependency", "job", "jobs/D/filter/A", true],
    ["dependency", "job", "jobs/D/load/S", true],
    ["dependency", "job", "jobs/D/load/S", false],
    ["log", "chat", "jobs/D/load/S.files/log/agent.chat", true],
  ]);
  assert.deepEqual(provenanceJobs(p, o).map((j) => j.path), [p, a, s]);
});

Deno.test("7: a result chat projecting its own job closes a cycle that terminates", async () => {
  await using d = await tmp();
  const p = mkJob(
    join(d.path, "jobs/Planner/ask/Default_x.chat"),
    null,
    {},
    { type: "chat" },
    "\nmeta: job=Planner/ask/Default_x.chat\n\nassistant:\n\nanswer\n",
  );
  const r = rows(traverseProvenance(p, opts(d.path, { rootType: "job" })), d.path);
  assert.deepEqual(r, [
    [null, "job", "jobs/Planner/ask/Default_x.chat", true],
    ["result", "chat", "jobs/Planner/ask/Default_x.chat", true],
    ["job", "job", "jobs/Planner/ask/Default_x.chat", false],
  ]);
});

Deno.test("8: each problem is thrown in strict mode and reported to onError otherwise", async (t) => {
  await using d = await tmp();
  const o = opts(d.path);
  const cases: {
    name: string;
    code: string;
    make: () => { root: string; rootType?: "job" };
    kind: string;
    path: (root: string) => string;
    relation: string | null;
    reference: (root: string) => unknown;
    message: string[];
  }[] = [
    {
      name: "missing meta job= target",
      code: "unresolved_job_reference",
      make: () => ({
        root: write(join(d.path, "m1.chat"), "user: q\n\nmeta: job=Nope/task/Gone\n"),
      }),
      kind: "chat",
      path: (r) => r,
      relation: "job",
      reference: () => "Nope/task/Gone",
      message: ["unresolved_job_reference", "Nope/task/Gone", "m1.chat"],
    },
    {
      name: "non-JSON .info",
      code: "job_info_unreadable",
      make: () => {
        const j = mkJob(join(d.path, "jobs/Bad/info/J"));
        write(j + ".info", "\x04\x08{marshal");
        return { root: j, rootType: "job" };
      },
      kind: "job",
      path: (r) => r,
      relation: "dependency",
      reference: (r) => r + ".info",
      message: ["job_info_unreadable", "Bad/info/J.info"],
    },
    {
      name: "missing dependency",
      code: "missing_dependency",
      make: () => ({
        root: mkJob(join(d.path, "jobs/Bad/dep/J"), [join(d.path, "jobs/Gone/gone/G")]),
        rootType: "job",
      }),
      kind: "job",
      path: (r) => r,
      relation: "dependency",
      reference: () => join(d.path, "jobs/Gone/gone/G"),
      message: ["missing_dependency", "Gone/gone/G", "Bad/dep/J"],
    },
    {
      name: "unresolved receipt job",
      code: "unresolved_job_reference",
      make: () => ({
        root: write(join(d.path, "r1.chat"), rc({ a1: [entry("job=Nope/ask/Gone")] })),
      }),
      kind: "chat",
      path: (r) => r,
      relation: "agent_job",
      reference: () => undefined,
      message: ["unresolved_job_reference", "r1.chat", "Nope/ask/Gone", "call a1", "tool ask"],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { root, rootType } = c.make();
      const strict = () => [...traverseProvenance(root, { ...o, rootType })];
      assert.throws(strict, (e: unknown) => {
        assert.ok(isScoutError(e), String(e));
        assert.equal(e.code, c.code);
        for (const s of c.message) assert.ok(e.message.includes(s), `${e.message} lacks ${s}`);
        return true;
      });
      const rec = recorder();
      const recs = [...traverseProvenance(root, { ...o, rootType, onError: rec.onError })];
      assert.equal(rec.errors.length, 1, c.name);
      const [err] = rec.errors;
      assert.equal(err!.error.code, c.code);
      assert.equal(err!.kind, c.kind);
      assert.equal(err!.relation, c.relation);
      if (c.path(root) !== "") assert.equal(err!.path, c.path(root));
      if (c.reference(root) !== "" && c.reference(root) !== undefined) {
        assert.deepEqual(err!.reference, c.reference(root));
      }
      // unresolved jobs are never yielded
      assert.ok(!recs.some((r) => r.node.path.includes("Gone") || r.node.path.includes("Nope")));
    });
  }
});

const UNREADABLE_PROBE = `
import { traverseProvenance } from "file://$ROOT/src/provenance/traverse.ts";
const [root, rootType] = [ROOT_PATH, ROOT_TYPE];
const o = { cwd: "/", jobRoots: [], rootType };
const errors = [];
const records = [...traverseProvenance(root, { ...o, onError: (e, kind, node, relation, reference) =>
  errors.push({ code: e.code, kind, path: node.path, relation, reference, message: e.message }) })]
  .map((r) => [r.relation, r.node.path]);
let strict = null;
try { [...traverseProvenance(root, o)]; } catch (e) { strict = { code: e.code, message: e.message }; }
console.log(JSON.stringify({ errors, records, strict }));
`;

interface Probe {
  errors: {
    code: string;
    kind: string;
    path: string;
    relation: string | null;
    reference: unknown;
  }[];
  records: [string | null, string][];
  strict: { code: string; message: string } | null;
}

Deno.test("8: an unreadable log chat (mode 000, unprivileged reader) is chat_unreadable", async () => {
  await using d = await tmp();
  openDir(d.path);
  const j = mkJob(join(d.path, "jobs/Bad/log/J"), null, {
    "agent.chat": "user: secret\n",
    "b.chat": "user: fine\n",
  });
  const secret = j + ".files/log/agent.chat";
  chmodSync(secret, 0o000);
  const code = UNREADABLE_PROBE.replace("ROOT_PATH", JSON.stringify(j)).replace(
    "ROOT_TYPE",
    '"job"',
  );
  const r = await runUnprivileged(d.path, code) as Probe;
  assert.deepEqual(r.errors.map((e) => [e.code, e.kind, e.path, e.relation, e.reference]), [
    ["chat_unreadable", "chat", secret, "log", secret],
  ]);
  // the unreadable chat is still a node; the traversal went on with the next log
  assert.deepEqual(r.records, [[null, j], ["log", secret], ["log", j + ".files/log/b.chat"]]);
  assert.equal(r.strict?.code, "chat_unreadable");
  assert.ok(r.strict!.message.includes(secret));
});

Deno.test("8b: an unreadable root chat is reported with a null relation", async () => {
  await using d = await tmp();
  openDir(d.path);
  const root = write(join(d.path, "root.chat"), "user: secret\n");
  chmodSync(root, 0o000);
  const code = UNREADABLE_PROBE.replace("ROOT_PATH", JSON.stringify(root)).replace(
    "ROOT_TYPE",
    '"chat"',
  );
  const r = await runUnprivileged(d.path, code) as Probe;
  assert.deepEqual(r.records, [[null, root]]);
  assert.deepEqual(r.errors.map((e) => [e.code, e.kind, e.relation]), [
    ["chat_unreadable", "chat", null],
  ]);
});

Deno.test("9: the first job root wins; two absolute references are two nodes", async () => {
  await using d = await tmp();
  const first = mkJob(join(d.path, "r1/Wf/t/N"));
  mkJob(join(d.path, "r2/Wf/t/N"));
  const chat = write(join(d.path, "a.chat"), "user: q\n\nmeta: job=Wf/t/N\n");
  const o = { cwd: d.path, jobRoots: [join(d.path, "r1"), join(d.path, "r2")] };
  const recs = [...traverseProvenance(chat, o)];
  assert.deepEqual(recs.map((r) => r.node.path), [chat, first]);
  const two = write(
    join(d.path, "b.chat"),
    `user: q\n\nmeta: job=${join(d.path, "r1/Wf/t/N")}\n\nmeta: job=${join(d.path, "r2/Wf/t/N")}\n`,
  );
  assert.deepEqual(provenanceJobs(two, o).map((j) => j.path), [
    join(d.path, "r1/Wf/t/N"),
    join(d.path, "r2/Wf/t/N"),
  ]);
});

Deno.test("9b: relocated absolute dependencies resolve by their last three components", async () => {
  await using d = await tmp();
  const dep = mkJob(join(d.path, "jobs/Data/load/S"));
  const p = mkJob(join(d.path, "jobs/Data/top/P"), ["/elsewhere/var/jobs/Data/load/S"]);
  const jobs = provenanceJobs(p, opts(d.path, { rootType: "job" }));
  assert.deepEqual(jobs.map((j) => j.path), [p, dep]);
});

Deno.test("10: an error job with partial logs and no result is traversed without a result edge", async () => {
  await using d = await tmp();
  const j = join(d.path, "jobs/Wf/ask/Default_e.chat");
  mkJob(j, [], { "agent.chat": "user: started\n" }, { type: "chat", status: "error" }, null);
  const r = rows(traverseProvenance(j, opts(d.path, { rootType: "job" })), d.path);
  assert.deepEqual(r, [
    [null, "job", "jobs/Wf/ask/Default_e.chat", true],
    ["log", "chat", "jobs/Wf/ask/Default_e.chat.files/log/agent.chat", true],
  ]);
  const [root] = [...traverseProvenance(j, opts(d.path, { rootType: "job" }))];
  assert.equal((root!.node as { info: Record<string, unknown> }).info.status, "error");
});

Deno.test("11: rootType job makes a job root; JobRef roots are jobs; missing roots throw", async () => {
  await using d = await tmp();
  const j = mkJob(join(d.path, "jobs/Wf/t/J"), []);
  const [a] = [...traverseProvenance(j, opts(d.path, { rootType: "job" }))];
  assert.equal(a!.kind, "job");
  const [b] = [...traverseProvenance({ kind: "job", path: j, info: null }, opts(d.path))];
  assert.equal(b!.kind, "job");
  // a relative job path resolves through the job roots
  const [c] = [...traverseProvenance("Wf/t/J", opts(d.path, { rootType: "job" }))];
  assert.equal(c!.node.path, j);
  // only a .files directory is enough for a job root
  mkdirSync(join(d.path, "jobs/Wf/t/F.files/log"), { recursive: true });
  const [f] = [
    ...traverseProvenance(join(d.path, "jobs/Wf/t/F"), opts(d.path, { rootType: "job" })),
  ];
  assert.equal(f!.kind, "job");
  assert.throws(
    () => traverseProvenance(join(d.path, "nope"), opts(d.path, { rootType: "job" })),
    (e: unknown) => isScoutError(e, "root_not_found"),
  );
  assert.throws(
    () => traverseProvenance(join(d.path, "nope.chat"), opts(d.path)),
    (e: unknown) => isScoutError(e, "root_not_found"),
  );
  assert.throws(
    () => traverseProvenance(join(d.path, "jobs"), opts(d.path)),
    (e: unknown) => isScoutError(e, "root_not_found"),
  );
});

Deno.test("12: two runs give identical record lists", async () => {
  await using d = await tmp();
  const { parent } = fixtureC(d.path);
  const a = rows(traverseProvenance(parent, opts(d.path)), d.path);
  const b = rows(traverseProvenance(parent, opts(d.path)), d.path);
  assert.deepEqual(a, b);
  assert.equal(a.length, 6);
});

Deno.test("13: follow restricts expansion; unknown relations throw invalid_follow", async () => {
  await using d = await tmp();
  const { parent } = fixtureC(d.path);
  assert.deepEqual(rows(traverseProvenance(parent, opts(d.path, { follow: ["job"] })), d.path), [
    [null, "chat", "parent.chat", true],
    ["job", "job", "jobs/Agents/critic/c", true],
  ]);
  assert.deepEqual(
    rows(traverseProvenance(parent, opts(d.path, { follow: ["agent_job"] })), d.path),
    [
      [null, "chat", "parent.chat", true],
      ["agent_job", "job", "jobs/Agents/worker/w", true],
    ],
  );
  assert.deepEqual(
    rows(traverseProvenance(parent, opts(d.path, { follow: "job" })), d.path).length,
    2,
  );
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => traverseProvenance(parent, opts(d.path, { follow: ["job", "import" as any] })),
    (e: unknown) => isScoutError(e, "invalid_follow") && e.message.includes('"import"'),
  );
});
