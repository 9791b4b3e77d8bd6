/**
 * Why an offline replay missed (R103-1): a round entry stores the digests of
 * its key's parts, so `not_cached` says when the cache holds an answer to the
 * same request recorded with other tool definitions — a tool's text changed
 * since the recording (as the `ask` tool's and the workflow tools' did) —
 * instead of only naming a digest. Entries written before the parts were
 * stored still replay.
 */
import assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** Records `llm ask` on a chat offering a copy of the Baking workflow's `cake` task. */
async function record(dir: string) {
  cpSync(join(ROOT, "fixtures/workflows/Baking"), join(dir, "Baking"), { recursive: true });
  const chat = `tool: ${join(dir, "Baking")} cake\n\nuser:\n\nbake\n`;
  for (const f of ["rec.chat", "rep.chat"]) writeFileSync(join(dir, f), chat);
  const srv = await startProviderServer({
    script: [
      { toolCalls: [{ name: "cake", id: "c1", arguments: { minutes: 5 } }] },
      { text: "Baked." },
    ],
  });
  const env = { SCOUT_HOME: join(dir, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m"];
  const args = (file: string, ...more: string[]) => [
    "llm",
    "ask",
    ...flags,
    "-c",
    file,
    "-o",
    file,
    ...more,
  ];
  // processes of their own: a workflow file is imported as it is at the time
  const run = (file: string, ...more: string[]) => runScout(args(file, ...more), { env, cwd: dir });
  const rec = await run("rec.chat");
  assert.equal(rec.code, 0, rec.stderr);
  assert.equal(srv.requests.length, 2);
  await srv.close();
  const cache = join(dir, "home", "var", "cache", "ask");
  const entries = readdirSync(cache).filter((n) => n.endsWith(".json")).map((n) => join(cache, n));
  assert.equal(entries.length, 2);
  return { run, entries, replay: () => run("rep.chat", "--offline") };
}

Deno.test("offline: a workflow task whose description changed since the recording: not_cached says the tool definitions differ", async () => {
  await using d = await tempDir();
  const { replay, entries } = await record(d.path);
  // the task's description (workflow.md's section) is part of its tool definition
  const doc = join(d.path, "Baking", "workflow.md");
  writeFileSync(doc, readFileSync(doc, "utf8").replace("a line of text.", "a line of text, warm."));
  const r = await replay();
  assert.equal(r.code, 1);
  const digest = /request digest ([0-9a-f]{64})/.exec(r.stderr)?.[1];
  assert.ok(digest, r.stderr);
  assert.ok(!entries.some((e) => e.endsWith(`${digest}.json`)), "a new key, not a recorded one");
  const round1 = entries.find((e) => JSON.parse(readFileSync(e, "utf8")).round === 1)!;
  assert.ok(
    r.stderr.includes(
      `Offline: no cached answer for backend "openai" (model "m"), request digest ${digest}; ` +
        `the cache holds an answer to the same messages recorded with other tool definitions ` +
        `(${round1}): a tool's text changed since it was recorded`,
    ),
    r.stderr,
  );
});

Deno.test("offline: a miss with other messages gets no hint; entries without parts (written before them) still replay", async () => {
  await using d = await tempDir();
  const { run, replay, entries } = await record(d.path);
  writeFileSync(
    join(d.path, "other.chat"),
    `tool: ${join(d.path, "Baking")} cake\n\nuser:\n\nfry\n`,
  );
  const other = await run("other.chat", "--offline");
  assert.equal(other.code, 1);
  assert.match(other.stderr, /request digest [0-9a-f]{64} \(the chat so far/);
  for (const e of entries) {
    const { parts, ...old } = JSON.parse(readFileSync(e, "utf8"));
    assert.deepEqual(Object.keys(parts).sort(), ["currentMeta", "messages", "params", "tools"]);
    writeFileSync(e, JSON.stringify(old) + "\n");
  }
  const r = await replay();
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  const recorded = readFileSync(join(d.path, "rec.chat"), "utf8");
  assert.equal(readFileSync(join(d.path, "rep.chat"), "utf8"), recorded);
});
