/**
 * An empty question with `-c FILE` or `-f FILE` reads nothing from stdin
 * (R158-1): Ruby reads stdin only for `...`, so a `while read f; do scout-ai
 * llm ask -c "$f"; done` loop keeps its list. With neither, a piped stdin is
 * still the question; `...` still takes stdin.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ASK_COMMANDS, askWorkspace } from "../support/ask_cli.ts";
import { put } from "../support/files.ts";

for (const [name, cmd] of ASK_COMMANDS) {
  Deno.test(`${name} -c FILE with no question sends FILE's chat, not stdin (R158-1)`, async () => {
    await using t = await askWorkspace("hi there");
    put(t.dir.path, "w.chat", "user: say hi\n");
    const r = await t.run([...cmd, "-c", "w.chat"], "job2\njob3\n");
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(t.users(), ["say hi"]);
    const saved = readFileSync(t.path("w.chat"), "utf8");
    assert.doesNotMatch(saved, /job2/);
    assert.match(saved, /^user: say hi\n[\s\S]*hi there\n$/);
  });

  Deno.test(`${name} -f FILE with no question attaches FILE only, not stdin (R158-1)`, async () => {
    await using t = await askWorkspace("hi there");
    put(t.dir.path, "notes.txt", "Remember the milk.\n");
    const r = await t.run([...cmd, "-f", "notes.txt"], "job2\n");
    assert.equal(r.code, 0, r.stderr);
    const users = t.users();
    assert.equal(users.length, 1, JSON.stringify(users));
    assert.match(users[0]!, /^<file name="notes\.txt">\nRemember the milk\./);
    assert.doesNotMatch(JSON.stringify(users), /job2/);
  });

  Deno.test(`${name}: '...' still takes stdin with -c FILE; no -c/-f: stdin is the question`, async () => {
    await using t = await askWorkspace("hi there");
    put(t.dir.path, "w.chat", "user: say hi\n");
    const d = await t.run([...cmd, "-c", "w.chat", "Summarise: ..."], "the diff");
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual(t.users(), ["say hi", "Summarise: the diff"]);
    const q = await t.run(cmd, "What is 2+2?\n");
    assert.equal(q.code, 0, q.stderr);
    assert.deepEqual(t.users(), ["What is 2+2?"]);
  });
}
