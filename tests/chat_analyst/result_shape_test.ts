/**
 * ChatAnalyst's results have the shape their help documents (R143): the
 * message tasks' results have `root` and their warnings `node`, as the
 * other tasks' do; `chat_tokens`' `nodes[].hidden` is why a node is hidden,
 * as `chat_overview` and `llm prov --json` say it; a missing root gives
 * `root` and `totals` null. These shapes are schema version 3, part of
 * every task's job identity: a message result cached before is not read.
 * Real fixtures and temp dirs, the CLI in-process.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";
import { createJob } from "../../src/workflow/job.ts";
import { input, registerWorkflow, workflow } from "../../src/workflow/define.ts";
import { chatAnalystWorkflow } from "../../src/chat_analyst/workflow.ts";

const FIX = join(ROOT, "fixtures/provenance");
const SOCIETY = join(FIX, "society/plan.chat");
const SOCIETY_JOBS = join(FIX, "society/jobs");

type Warning = { code: string; message: string; node: string | null };
type Json = Record<string, unknown>;

async function analyst(home: string, task: string, args: string[]): Promise<Json> {
  const r = await runMain(["workflow", "task", "ChatAnalyst", task, ...args, "--json"], {
    env: { SCOUT_HOME: home, NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).result;
}

/** Every warning has exactly code, message and node. */
function assertWarnings(ws: unknown, what: string): Warning[] {
  for (const w of ws as Json[]) {
    assert.deepEqual(Object.keys(w).sort(), ["code", "message", "node"], what);
  }
  return ws as Warning[];
}

Deno.test("message_index and message_content have root, and warnings with node, as the other tasks (R143-1)", async () => {
  await using home = await tempDir();
  const roots: [string, string[]][] = [
    [SOCIETY, ["--jobs_dir", SOCIETY_JOBS]],
    // a job root, and a walk with warnings (no --jobs_dir: the session's jobs do not resolve)
    [join(SOCIETY_JOBS, "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat"), []],
    [SOCIETY, []],
  ];
  for (const [file, jobs] of roots) {
    const args = ["--file", file, ...jobs];
    const overview = await analyst(home.path, "chat_overview", args);
    const idx = await analyst(home.path, "message_index", args);
    assert.equal(idx.root, overview.root, file);
    assert.match(String(idx.root), /^(chat|job):\//);
    // the walk's problems name their node, as the report's do
    const nodes = (ws: unknown) => assertWarnings(ws, file).map((w) => [w.code, w.node]);
    assert.deepEqual(nodes(idx.warnings), nodes(overview.warnings), file);
    if (jobs.length === 0 && file === SOCIETY) assert.ok(nodes(idx.warnings).length > 0);
  }
  const args = ["--file", SOCIETY, "--jobs_dir", SOCIETY_JOBS];
  const bad = await analyst(home.path, "message_content", [...args, "--addresses", "not json"]);
  assert.equal(bad.root, `chat:${SOCIETY}`);
  assert.deepEqual(assertWarnings(bad.warnings, "bad").map((w) => [w.code, w.node]), [
    ["invalid_addresses", null],
  ]);
  const want = JSON.stringify([[SOCIETY, 999], ["/etc/passwd", 0], [SOCIETY]]);
  const missing = await analyst(home.path, "message_content", [...args, "--addresses", want]);
  assert.deepEqual(assertWarnings(missing.warnings, "missing").map((w) => [w.code, w.node]), [
    ["invalid_addresses", null],
    ["address_not_found", `chat:${SOCIETY}`], // the chat is a node of the walk
    ["address_not_found", null], // not part of the provenance: no node
  ]);
  // a missing root: root null, its warning with node null, in every task alike
  for (const t of ["message_index", "message_content", "chat_overview", "chat_tokens"]) {
    const r = await analyst(home.path, t, [
      "--file",
      join(home.path, "nope.chat"),
      ...(t === "message_content" ? ["--addresses", "[]"] : []),
    ]);
    assert.equal(r.root, null, t);
    assert.equal(r.complete, false, t);
    assert.deepEqual(assertWarnings(r.warnings, t).map((w) => [w.code, w.node]), [
      ["root_not_found", null],
    ]);
    if (t === "chat_tokens") assert.equal(r.totals, null);
  }
});

Deno.test("chat_tokens: nodes[].hidden says why, as chat_overview and llm prov --json (R143-2)", async () => {
  await using home = await tempDir();
  const args = ["--file", SOCIETY, "--jobs_dir", SOCIETY_JOBS];
  const tokens = await analyst(home.path, "chat_tokens", args);
  const overview = await analyst(home.path, "chat_overview", args);
  const hidden = (r: Json) => (r.nodes as Json[]).map((n) => [n.id, n.hidden]);
  assert.deepEqual(hidden(tokens), hidden(overview));
  const kinds = new Set(hidden(tokens).map(([, h]) => h));
  assert.deepEqual(kinds, new Set([null, "result_chat", "top_level_agent_log"]));
  assert.equal(tokens.version, 3);
});

/**
 * The job `message_index` had at version 2: the same workflow, task and
 * inputs, without the `result_version` dependency.
 */
function earlierIndexPath(home: string, file: string): string {
  const inputs = { file: input.file({ required: true }), jobs_dir: input.array({ default: [] }) };
  const earlier = workflow("ChatAnalyst", {
    tasks: { message_index: { type: "json", inputs, run: () => ({}) } },
  });
  try {
    return createJob(earlier, "message_index", { inputs: { file }, env: { SCOUT_HOME: home } })
      .path;
  } finally {
    registerWorkflow(chatAnalystWorkflow()); // `workflow` registered the earlier one by name
  }
}

Deno.test("a message_index result cached at version 2 (no root) is not read as one of version 3", async () => {
  await using home = await tempDir();
  const stale = earlierIndexPath(home.path, SOCIETY);
  mkdirSync(dirname(stale), { recursive: true });
  const old = { schema: "scout-ai/chat-analyst", version: 2, task: "message_index", file: SOCIETY };
  writeFileSync(stale, JSON.stringify({ ...old, complete: true, chats: 0, messages: [] }));
  writeFileSync(`${stale}.info`, JSON.stringify({ status: "done" }));
  const idx = await analyst(home.path, "message_index", ["--file", SOCIETY]);
  assert.equal(idx.version, 3);
  assert.equal(idx.root, `chat:${SOCIETY}`);
  assert.ok((idx.chats as number) > 0);
  // the version job is named for its version; one named for another is refused
  const other = await runMain(
    ["workflow", "task", "ChatAnalyst", "result_version", "--jobname", "v2"],
    { env: { SCOUT_HOME: home.path, NO_COLOR: "1" } },
  );
  assert.equal(other.code, 1);
  assert.match(other.stderr, /result_version is job "v3", not "v2"/);
});
