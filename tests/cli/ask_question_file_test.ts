/**
 * A question that is the path of an existing regular file is that file's chat
 * (R158-2, agents.md §5.1 step 4; Ruby's `LLM.chat(question)` reads it): the
 * provider gets its messages, not its name, for `llm ask` and `agent ask`;
 * `--dry-run` shows them; `-c`/`-o` save an `import:` line (from the chat's
 * directory), so a continued chat sends the same. A directory or a question
 * that names no file is text, as before.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { ASK_COMMANDS, askWorkspace, type Sent } from "../support/ask_cli.ts";
import { put } from "../support/files.ts";

const PROMPT = "system: be brief\n\nuser: capital of Spain?\n";

const READ: Sent[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: "capital of Spain?" },
];

for (const [name, cmd] of ASK_COMMANDS) {
  Deno.test(`${name} FILE: the provider gets FILE's chat, not its name (R158-2)`, async () => {
    await using t = await askWorkspace("Madrid");
    put(t.dir.path, "prompt.chat", PROMPT);
    const r = await t.run([...cmd, "prompt.chat"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Madrid\n");
    assert.deepEqual(t.sent(), READ);
    // an absolute path too; --dry-run shows the messages
    const d = await t.run([...cmd, "--dry-run", t.path("prompt.chat")]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /be brief[\s\S]*capital of Spain\?/);
    assert.doesNotMatch(d.stdout, /prompt\.chat/);
  });

  Deno.test(`${name} -c FILE QFILE saves an import: line; continued, it sends the same (R158-2)`, async () => {
    await using t = await askWorkspace("Madrid");
    put(t.dir.path, "prompt.chat", PROMPT);
    put(t.dir.path, "sub/prompt.chat", "user: imported\n");
    put(t.dir.path, "qs/q.chat", "import: ../sub/prompt.chat\n\nuser: and more\n");
    const r = await t.run([...cmd, "-c", "out/s.chat", "qs/q.chat"]);
    assert.equal(r.code, 0, r.stderr);
    const first = t.sent();
    assert.deepEqual(first, [
      { role: "user", content: "imported" },
      { role: "user", content: "and more" },
    ]);
    const saved = readFileSync(t.path("out/s.chat"), "utf8");
    assert.match(saved, /^import:\s*\.\.\/qs\/q\.chat\n[\s\S]*Madrid\n$/);
    const next = await t.run([...cmd, "-c", "out/s.chat", "go on"]);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(t.sent().slice(0, 2), first);
  });

  Deno.test(`${name}: a question naming no file, a directory or a device is text (R158-2)`, async () => {
    await using t = await askWorkspace("Madrid");
    put(t.dir.path, "prompt.chat", PROMPT);
    mkdirSync(t.path("adir"));
    for (const q of ["missing.chat", "adir", "/dev/null", "/dev/stdin"]) {
      const r = await t.run([...cmd, q]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(t.sent(), [{ role: "user", content: q }]);
    }
  });
}
