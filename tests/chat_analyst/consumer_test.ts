/**
 * The seed's consumer test: `llm prov --json` and ChatAnalyst's
 * `chat_overview` / `chat_tokens` discover the same chat paths, jobs,
 * structural edges, events and totals — on the provenance fixtures and on a
 * generated store. Both run through the CLI (`main`), in-process.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { generateStore } from "../../bench/prov_store.ts";

type Doc = {
  root: string;
  complete: boolean;
  nodes: { id: string; kind: string; path: string }[];
  edges: unknown[];
  events: { identity: unknown; tokens: unknown }[];
  totals: unknown;
  warnings: { code: string; message: string }[];
};

async function prov(file: string, jobs: string, env: Record<string, string>): Promise<Doc> {
  // (a --jobs-dir that does not exist is an error; some error fixtures have no jobs/)
  const dirs = existsSync(jobs) ? ["--jobs-dir", jobs] : [];
  const r = await runMain(["llm", "prov", file, ...dirs, "--json"], { env });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function analyst(
  task: string,
  file: string,
  jobs: string,
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const r = await runMain(
    ["workflow", "task", "ChatAnalyst", task, "--file", file, "--jobs_dir", jobs, "--json"],
    { env },
  );
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).result;
}

async function assertSameDiscovery(file: string, jobs: string): Promise<Doc> {
  await using home = await tempDir("scout-analyst-");
  const env = { SCOUT_HOME: home.path, NO_COLOR: "1" };
  const doc = await prov(file, jobs, env);
  const overview = await analyst("chat_overview", file, jobs, env) as unknown as Doc;
  const tokens = await analyst("chat_tokens", file, jobs, env) as unknown as Doc;
  const paths = (d: Doc, kind: string) => d.nodes.filter((n) => n.kind === kind).map((n) => n.path);
  assert.equal(overview.root, doc.root);
  assert.deepEqual(paths(overview, "chat"), paths(doc, "chat"), "chat paths");
  assert.deepEqual(paths(overview, "job"), paths(doc, "job"), "jobs");
  assert.deepEqual(overview.edges, doc.edges, "structural edges");
  assert.deepEqual(overview.nodes, doc.nodes, "nodes as prov --json has them");
  assert.deepEqual(tokens.totals, doc.totals, "totals");
  assert.deepEqual(
    tokens.events.map((e) => [e.identity, e.tokens]),
    doc.events.map((e) => [e.identity, e.tokens]),
    "events",
  );
  for (const r of [overview, tokens]) {
    assert.equal(r.complete, doc.complete);
    assert.deepEqual(
      r.warnings.map((w) => [w.code, w.message]),
      doc.warnings.map((w) => [w.code, w.message]),
    );
  }
  return doc;
}

const FIX = join(ROOT, "fixtures/provenance");

Deno.test("consumer: prov --json and ChatAnalyst agree on the example fixture", async () => {
  const doc = await assertSameDiscovery(
    join(FIX, "example/session.chat"),
    join(FIX, "example/jobs"),
  );
  // the fixture is not trivial: several chats, jobs, edges and a non-zero total
  assert.ok(doc.nodes.length >= 8 && doc.edges.length >= 8);
  assert.ok((doc.totals as { deduplicated_total: { tt: number } }).deduplicated_total.tt > 0);
});

Deno.test("consumer: prov --json and ChatAnalyst agree on every error fixture (warnings too)", async () => {
  const cases = JSON.parse(readFileSync(join(FIX, "errors/cases.json"), "utf8")) as {
    name: string;
    root: string;
  }[];
  let incomplete = 0;
  for (const c of cases) {
    const dir = join(FIX, "errors", c.name);
    const doc = await assertSameDiscovery(join(dir, c.root), join(dir, "jobs"));
    if (!doc.complete) incomplete++;
  }
  assert.ok(incomplete >= 5, `only ${incomplete} incomplete cases`);
});

Deno.test("consumer: prov --json and ChatAnalyst agree on a generated store", async () => {
  await using dir = await tempDir("scout-analyst-store-");
  const s = await generateStore(join(dir.path, "store"), { scale: 0.02, seed: 7 });
  const doc = await assertSameDiscovery(s.root, s.jobsDir);
  assert.ok(doc.nodes.filter((n) => n.kind === "job").length >= 40);
});
