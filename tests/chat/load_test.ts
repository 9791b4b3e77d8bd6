import assert from "node:assert/strict";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { loadRaw, loadRawSync, parse } from "../../src/chat/mod.ts";
import { ROOT, tempDir } from "../support/cli.ts";

const FIXTURES = join(ROOT, "fixtures", "chats");

Deno.test("loadRaw = parse(file text): nothing compiled, quirks kept", async () => {
  const path = join(FIXTURES, "options.chat");
  const chat = await loadRaw(path);
  assert.deepEqual(chat, parse(await Deno.readTextFile(path)));
  assert.deepEqual(chat[0], { role: "user", content: "" }, "leading empty message kept");
  for (const role of ["import", "task", "job", "file", "option", "config", "clear"]) {
    assert.ok(chat.some((m) => m.role === role), `${role} stays as written`);
  }
  assert.deepEqual(loadRawSync(path), chat);
});

Deno.test("loadRaw: invalid UTF-8 → U+FFFD, a leading BOM is dropped ([TS-FIX], R80-6)", async () => {
  const bad = await loadRaw(join(FIXTURES, "bad_bytes.chat"));
  assert.match(String(bad[1]!.content), /Invalid UTF-8: \uFFFD\uFFFD/);
  const bom = await loadRaw(join(FIXTURES, "bom.chat"));
  assert.deepEqual(bom.map((m) => m.role), ["user", "system", "user"]);
  assert.deepEqual(loadRawSync(join(FIXTURES, "bom.chat")), bom);
  // parse() of text keeps U+FEFF as Ruby's Chat.parse does (checked with Ruby 3.1): the line is
  // user content, not a header, and there is no leading empty message
  const text = "\uFEFFsystem: be brief\n\nassistant:\n\nok\n\nmeta: pt=1 ct=2 tt=3\n";
  assert.deepEqual(parse(text), [
    { role: "user", content: "\uFEFFsystem: be brief" },
    { role: "assistant", content: "ok" },
    { role: "meta", content: "pt=1 ct=2 tt=3" },
  ]);
  // the same bytes as a file: the header is read (one more message, the parser's leading one)
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "b.chat"), text);
  assert.deepEqual((await loadRaw(join(dir.path, "b.chat"))).map((m) => m.role), [
    "user",
    "system",
    "assistant",
    "meta",
  ]);
});

Deno.test("loadRaw: missing file and directory are typed errors naming the path", async () => {
  await using dir = await tempDir();
  const missing = join(dir.path, "missing.chat");
  await assert.rejects(
    loadRaw(missing),
    (e) => isScoutError(e, "not_found") && e.file === missing && e.message.includes(missing),
  );
  assert.throws(() => loadRawSync(missing), (e) => isScoutError(e, "not_found"));
  await assert.rejects(
    loadRaw(dir.path),
    (e) => isScoutError(e, "io") && e.message.includes("Is a directory"),
  );
  assert.throws(() => loadRawSync(dir.path), (e) => isScoutError(e, "io"));
});
