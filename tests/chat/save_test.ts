import assert from "node:assert/strict";
import { join } from "node:path";
import { chatPath, isScoutError, loadRaw, parse, save, write, writeAnswer } from "../../mod.ts";
import type { Chat } from "../../mod.ts";
import { tempDir } from "../support/cli.ts";

const chat: Chat = [
  { role: "system", content: "s" },
  { role: "user", content: "q" },
  { role: "assistant", content: "a\nuser: not a header" },
];

Deno.test("save writes print(chat) atomically; loadRaw reads it back", async () => {
  await using dir = await tempDir();
  const path = await save(chat, "./out/a.chat", { cwd: dir.path });
  assert.equal(path, join(dir.path, "out", "a.chat"));
  assert.equal(
    await Deno.readTextFile(path!),
    "\nsystem:\n\ns\n\nuser:\n\nq\n\nassistant:\n\na\n\\user: not a header",
  );
  assert.deepEqual((await loadRaw(path!)).slice(1), chat);
  const leftovers = [...Deno.readDirSync(join(dir.path, "out"))].map((e) => e.name);
  assert.deepEqual(leftovers, ["a.chat"], "no temp files left behind");
});

Deno.test("save force=false keeps an existing file", async () => {
  await using dir = await tempDir();
  const target = join(dir.path, "keep.chat");
  await Deno.writeTextFile(target, "old");
  assert.equal(await save(chat, target, { force: false }), null);
  assert.equal(await Deno.readTextFile(target), "old");
  assert.equal(await save(chat, target), target);
  assert.notEqual(await Deno.readTextFile(target), "old");
});

Deno.test("chatPath D25: ../x is cwd-relative (Ruby: chats dir); bare names go to the chats dir", async () => {
  await using dir = await tempDir();
  const cwd = join(dir.path, "work");
  const home = join(dir.path, "home");
  await Deno.mkdir(cwd);
  const env = { HOME: home, SCOUT_HOME: join(home, ".scout") };
  assert.equal(chatPath("../x.chat", { cwd, env }), join(dir.path, "x.chat"));
  assert.equal(chatPath("sub/x.chat", { cwd, env }), join(cwd, "sub", "x.chat"));
  assert.equal(chatPath("/abs/x.chat", { cwd, env }), "/abs/x.chat");
  assert.equal(chatPath("~/x.chat", { cwd, env }), join(home, "x.chat"));
  // Bare name, nothing exists: SCOUT_HOME/chats (created on write).
  assert.equal(chatPath("x.chat", { cwd, env }), join(home, ".scout", "chats", "x.chat"));
  // <cwd>/chats exists: it wins.
  await Deno.mkdir(join(cwd, "chats"));
  assert.equal(chatPath("x.chat", { cwd, env }), join(cwd, "chats", "x.chat"));
  // The bare name exists in cwd: written in place.
  await Deno.writeTextFile(join(cwd, "x.chat"), "");
  assert.equal(chatPath("x.chat", { cwd, env }), join(cwd, "x.chat"));

  const written = await save(chat, "fresh.chat", { cwd, env, chatDirs: [join(dir.path, "c")] });
  assert.equal(written, join(dir.path, "c", "fresh.chat"));
  assert.deepEqual(parse(await Deno.readTextFile(written!)).slice(1), chat);
});

Deno.test("write prints the compiled chat; writeAnswer writes the answer", async () => {
  await using dir = await tempDir();
  const seen: Chat[] = [];
  const path = await write(chat, join(dir.path, "c.chat"), {
    compile: (c) => {
      seen.push([...c]);
      return Promise.resolve(c.filter((m) => m.role !== "system"));
    },
  });
  assert.equal(seen.length, 1);
  assert.equal(
    await Deno.readTextFile(path!),
    "\nuser:\n\nq\n\nassistant:\n\na\n\\user: not a header",
  );
  assert.equal(
    await write(chat, path!, { force: false, compile: () => Promise.reject(new Error("ran")) }),
    null,
    "no compile when the file is kept",
  );

  const ans = await writeAnswer(chat, join(dir.path, "answer.txt"));
  assert.equal(await Deno.readTextFile(ans!), "a\nuser: not a header");
  await writeAnswer([{ role: "assistant", content: { n: 1 } }], join(dir.path, "o.json"));
  assert.equal(await Deno.readTextFile(join(dir.path, "o.json")), '{"n":1}');
  await assert.rejects(
    writeAnswer([], join(dir.path, "none.txt")),
    (e) => isScoutError(e, "invalid_input"),
  );
});

Deno.test("save into an unwritable place is an io error naming the path", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "file"), "");
  await assert.rejects(
    save(chat, join(dir.path, "file", "x.chat")),
    (e) => isScoutError(e, "io") && String(e.message).includes("file"),
  );
});

Deno.test("save, write and writeAnswer write through a symbolic link (the target keeps its mode) and refuse a read-only chat (R74-5)", async () => {
  await using dir = await tempDir();
  const target = join(dir.path, "private.chat");
  const link = join(dir.path, "link.chat");
  Deno.symlinkSync("private.chat", link);
  const writers = [
    (p: string) => save(chat, p),
    (p: string) => write(chat, p, { compile: (c) => [...c] }),
    (p: string) => writeAnswer(chat, p),
  ];
  for (const w of writers) {
    await Deno.writeTextFile(target, "old");
    Deno.chmodSync(target, 0o600);
    assert.equal(await w(link), link);
    assert.equal(Deno.lstatSync(link).isSymlink, true, "the link stays");
    assert.notEqual(await Deno.readTextFile(target), "old", "the target is written");
    assert.equal(Deno.statSync(target).mode! & 0o777, 0o600, "a private chat stays private");
  }
  await Deno.writeTextFile(target, "kept");
  Deno.chmodSync(target, 0o444); // read-only, also to root (the tests' user), whom access() lets write
  for (const w of writers) {
    for (const path of [target, link]) {
      await assert.rejects(w(path), (e) => {
        assert.ok(isScoutError(e, "io"), String(e));
        assert.match((e as Error).message, /not writable/);
        assert.equal((e as { file?: string }).file, path);
        return true;
      });
    }
  }
  assert.equal(await Deno.readTextFile(target), "kept", "left as it was");
  assert.equal(Deno.statSync(target).mode! & 0o777, 0o444);
});
