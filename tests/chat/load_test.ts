import assert from "node:assert/strict";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { loadRaw, loadRawSync, parse } from "../../src/chat/mod.ts";
import { compileFile } from "../../src/chat/compile.ts";
import { nodeFileReader } from "../../src/chat/find_file.ts";
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

Deno.test("loadRaw, loadRawSync, compileFile and import: refuse a UTF-16/UTF-32 chat, naming it ([TS-FIX] R133-1)", async () => {
  await using dir = await tempDir();
  const u16 = join(dir.path, "u16.chat");
  // "user: hi\n" as Notepad's "Unicode" saves it
  Deno.writeFileSync(
    u16,
    Uint8Array.from([0xff, 0xfe, ...[..."user: hi\n"].flatMap((c) => [c.charCodeAt(0), 0])]),
  );
  const u32 = join(dir.path, "u32.chat");
  Deno.writeFileSync(u32, Uint8Array.of(0, 0, 0xfe, 0xff, 0, 0, 0, 0x61));
  const is = (file: string, encoding: string) => (e: unknown) =>
    isScoutError(e, "chat_encoding") && e.file === file && e.encoding === encoding &&
    e.message.startsWith(`Chat "${file}" is ${encoding} text (byte-order mark `);
  await assert.rejects(loadRaw(u16), is(u16, "UTF-16"));
  assert.throws(() => loadRawSync(u16), is(u16, "UTF-16"));
  assert.throws(() => loadRawSync(u32), is(u32, "UTF-32"));
  await assert.rejects(compileFile("u16.chat", { cwd: dir.path }), is("u16.chat", "UTF-16"));
  const main = join(dir.path, "main.chat");
  Deno.writeFileSync(main, new TextEncoder().encode("user: a\n\nimport: u16.chat\n"));
  await assert.rejects(
    compileFile("main.chat", { cwd: dir.path }),
    (e) =>
      isScoutError(e, "chat_encoding") && e.file === "main.chat" && e.line === 3 &&
      e.reference === "u16.chat" && e.message.startsWith('Import "u16.chat" is UTF-16 text'),
  );
  // a reader of an embedder's without readChat reads chats with readText, as before
  const reader = { ...nodeFileReader, readChat: undefined };
  const chat = await compileFile("u16.chat", { cwd: dir.path, reader });
  assert.match(String(chat.at(-1)!.content), /^\uFFFD\uFFFDu\0s\0e\0r/);
});
