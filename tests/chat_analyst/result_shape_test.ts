/**
 * ChatAnalyst's results have the shape their help documents (R143): the
 * message tasks' results have `root` and their warnings `node`, as the
 * other tasks' do; a missing root gives `root` and `totals` null. Real
 * fixtures and temp dirs, the CLI in-process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

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
