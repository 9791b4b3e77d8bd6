/**
 * A chat whose control lines ran or reused jobs (`task:`, `inline_task:`,
 * `exec_task:`, `job:`, `inline_job:`) — a chat asked with `llm ask -c`:
 * compile ran its tasks — is read as literal text (`provenance.md` §1.3:
 * those jobs are not followed), and `llm prov` says so (R93-3, [TS-FIX]): one
 * `control_jobs_not_followed` warning per chat naming the file and the lines,
 * in the JSON's `warnings` and once on stderr; `complete` and the totals are
 * unchanged.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, runScout } from "../support/cli.ts";
import { factsFromText, factsToText, readChatFacts } from "../../src/provenance/chat_facts.ts";
import { tmp, write } from "./support.ts";

const CHAT = [
  "user: compare",
  "",
  "task: Wf summarize file=a.txt",
  "",
  "inline_job: Wf/summarize/abc",
  "",
  "meta: pt=10 ct=5 tt=15 inference_id=i1",
  "",
  "assistant: done",
  "",
  "job: Wf/other/def",
  "",
].join("\n");

Deno.test("llm prov of a chat with task/job control lines: one warning naming file and lines; totals and complete unchanged (R93-3)", async () => {
  await using d = await tmp();
  const chat = join(d.path, "asked.chat");
  write(chat, CHAT);
  const json = await runMain(["llm", "prov", chat, "--json"], { cwd: d.path });
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.complete, true);
  assert.equal(doc.totals.deduplicated_total.tt, 15);
  const warned = doc.warnings.filter((w: { code: string }) =>
    w.code === "control_jobs_not_followed"
  );
  assert.equal(warned.length, 1, json.stdout);
  const w = warned[0];
  assert.equal(w.kind, "chat");
  assert.equal(w.node, `chat:${chat}`);
  assert.deepEqual(w.reference, { lines: [3, 5, 11], roles: ["task", "inline_job", "job"] });
  assert.match(w.message, new RegExp(`^${chat}:3,5,11: `));
  assert.match(w.message, /not followed/);
  assert.match(w.message, /not in these totals/);
  assert.match(w.message, /--jobs-dir/);

  // the tree: exit 0, the warning once on stderr, no incomplete line
  const tree = await runScout(["llm", "prov", chat], { cwd: d.path, env: { NO_COLOR: "1" } });
  assert.equal(tree.code, 0, tree.stderr);
  const lines = tree.stderr.split("\n").filter((l) => l.includes("not followed"));
  assert.equal(lines.length, 1, tree.stderr);
  assert.match(lines[0]!, new RegExp(`${chat}:3,5,11: `));
  assert.doesNotMatch(tree.stdout, /incomplete/);
});

Deno.test("llm prov of a chat without job control lines: no such warning (R93-3)", async () => {
  await using d = await tmp();
  const chat = join(d.path, "plain.chat");
  write(chat, "user: q\n\nmeta: pt=1 ct=1 tt=2 inference_id=a\n\nassistant: a\n");
  const r = await runMain(["llm", "prov", chat, "--json"], { cwd: d.path });
  assert.deepEqual(JSON.parse(r.stdout).warnings, []);
});

Deno.test("a chat's control job lines survive the facts text the helper threads send (R93-3)", async () => {
  await using d = await tmp();
  const chat = join(d.path, "asked.chat");
  write(chat, CHAT);
  for (const toolCalls of [false, true]) {
    const facts = readChatFacts(chat, { toolCalls });
    assert.deepEqual(facts.controlJobs, {
      lines: [3, 5, 11],
      roles: ["task", "inline_job", "job"],
    });
    assert.deepEqual(factsFromText(chat, factsToText(facts)), facts);
  }
});
