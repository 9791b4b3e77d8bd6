import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { compileFile, compileText } from "../../src/chat/compile.ts";
import { isScoutError } from "../../src/errors.ts";
import { isolated, rc, tree } from "./compile_support.ts";

Deno.test("import: spliced in place, compiled with the imported file as origin", async () => {
  await using t = await tree({
    "main.chat": "system:\n\nS\n\nimport: parts/intro.chat\n\nuser:\n\nmain question\n",
    "parts/intro.chat": "user: intro\nfile: note.txt\nimport: deeper/more.chat\n",
    "parts/note.txt": "next to intro",
    "parts/deeper/more.chat": "assistant:\n\nfrom more\n",
  });
  const out = await compileFile("main.chat", isolated(t.path));
  assert.deepEqual(rc(out), [
    "system:S",
    "user:intro",
    'user:<file name="note.txt">\nnext to intro\n</file>',
    "assistant:from more",
    "user:main question",
  ]);
});

Deno.test("import drops previous_response_id; continue keeps it (resumes a remote conversation)", async () => {
  await using t = await tree({
    "old.chat": "user: q\nassistant:\n\nanswer\nprevious_response_id: resp_1\n",
  });
  const o = isolated(t.path);
  assert.deepEqual(rc(await compileText("import: old.chat", o)), ["user:q", "assistant:answer"]);
  assert.deepEqual(rc(await compileText("continue: old.chat", o)), [
    "previous_response_id:resp_1",
  ]);
  assert.deepEqual(rc(await compileText("last: old.chat", o)), ["assistant:answer"]);
});

Deno.test("continue skips blank messages; last skips empty ones", async () => {
  await using t = await tree({
    "a.chat": "user:\n\nfirst\n\nassistant:\n\nreply\n\nuser:\n\n   \n",
  });
  const o = isolated(t.path);
  assert.deepEqual(rc(await compileText("continue: a.chat", o)), ["assistant:reply"]);
  assert.deepEqual(rc(await compileText("last: a.chat", o)), ["assistant:reply"]);
});

Deno.test("[DIVERGE D16] nothing to continue / take last from is a clear error", async () => {
  await using t = await tree({ "empty.chat": "\n\n", "ids.chat": "previous_response_id: r1\n" });
  const o = isolated(t.path);
  for (
    const [text, line] of [["continue: empty.chat", 1], ["user: x\nlast: ids.chat", 2]] as const
  ) {
    await assert.rejects(compileText(text, { ...o, name: "main.chat" }), (e) => {
      assert.ok(isScoutError(e, "nothing_to_continue"));
      assert.match(e.message, /^Nothing to continue in "(empty|ids)\.chat"$/);
      assert.equal(e.file, "main.chat");
      assert.equal(e.line, line);
      return true;
    });
  }
});

Deno.test("a missing import names the reference and the importing file and line", async () => {
  await using t = await tree({
    "main.chat": "user: hi\nimport: sub/a.chat\n",
    "sub/a.chat": "system:\n\nS\n\nuser:\n\nq\n\nimport: gone.chat\n",
  });
  await assert.rejects(compileFile("main.chat", isolated(t.path)), (e) => {
    assert.ok(isScoutError(e, "import_not_found"));
    assert.equal(e.message, 'Import not found: "gone.chat"');
    assert.equal(e.file, "sub/a.chat");
    assert.equal(e.line, 9);
    assert.equal(e.reference, "gone.chat");
    return true;
  });
});

Deno.test("[DIVERGE D16] import cycles are import_cycle errors, not stack overflows", async () => {
  await using t = await tree({
    "self.chat": "user: x\nimport: self.chat\n",
    "a.chat": "import: b.chat\n",
    "b.chat": "user: in b\n\nimport: c.chat\n",
    "c.chat": "continue: a.chat\n",
  });
  const o = isolated(t.path);
  await assert.rejects(compileFile("self.chat", o), (e) => {
    assert.ok(isScoutError(e, "import_cycle"));
    assert.equal(e.message, "Import cycle: self.chat → self.chat");
    assert.equal(e.file, "self.chat");
    assert.equal(e.line, 2);
    return true;
  });
  await assert.rejects(compileFile("a.chat", o), (e) => {
    assert.ok(isScoutError(e, "import_cycle"));
    assert.equal(e.message, "Import cycle: a.chat → b.chat → c.chat → a.chat");
    assert.equal(e.file, "c.chat");
    assert.equal(e.line, 1);
    return true;
  });
  // from text without an origin the cycle is found one level later
  await assert.rejects(compileText("import: a.chat", o), (e) => isScoutError(e, "import_cycle"));
});

Deno.test("importing the same file twice (no cycle) is fine", async () => {
  await using t = await tree({ "p.chat": "user: p\n" });
  assert.deepEqual(rc(await compileText("import: p.chat\nimport: p.chat", isolated(t.path))), [
    "user:p",
    "user:p",
  ]);
});

Deno.test("a clear in an imported file stays local; a clear in main cuts imported content", async () => {
  await using t = await tree({
    "inner.chat": "user: dropped in inner\nclear: x\nuser: kept from inner\n",
  });
  const o = isolated(t.path);
  assert.deepEqual(rc(await compileText("user: main 1\nimport: inner.chat\nuser: main 2", o)), [
    "user:main 1",
    "user:kept from inner",
    "user:main 2",
  ]);
  assert.deepEqual(rc(await compileText("import: inner.chat\nclear: y\nuser: only", o)), [
    "user:only",
  ]);
});

Deno.test("search path: next to the origin, then cwd, then <cwd>/chats, then $SCOUT_HOME/chats", async () => {
  await using t = await tree({
    "work/main.chat":
      "import: shared.chat\nimport: lib.chat\nimport: home.chat\nimport: here.chat\n",
    "work/here.chat": "user: next to origin\n",
    "here.chat": "user: cwd copy (shadowed)\n",
    "shared.chat": "user: from cwd\n",
    "chats/lib.chat": "user: from ./chats\n",
    "scout_home/chats/home.chat": "user: from SCOUT_HOME/chats\n",
  });
  const out = await compileFile("work/main.chat", isolated(t.path));
  assert.deepEqual(rc(out), [
    "user:from cwd",
    "user:from ./chats",
    "user:from SCOUT_HOME/chats",
    "user:next to origin",
  ]);
  // explicit chatDirs replace the defaults; ~ expands to HOME
  await using h = await tree({ "home/mine.chat": "user: tilde\n" });
  assert.deepEqual(rc(await compileText("import: ~/mine.chat", isolated(h.path))), ["user:tilde"]);
  await assert.rejects(
    compileFile("work/main.chat", { ...isolated(t.path), chatDirs: [] }),
    (e) => isScoutError(e, "import_not_found") && e.reference === "lib.chat",
  );
});

Deno.test("libDir is searched after the origin (only with an origin)", async () => {
  await using t = await tree({ "lib/x.chat": "user: lib\n", "a/main.chat": "import: x.chat\n" });
  const o = { ...isolated(t.path), libDir: "lib" };
  assert.deepEqual(rc(await compileFile("a/main.chat", o)), ["user:lib"]);
  await assert.rejects(
    compileText("import: x.chat", o),
    (e) => isScoutError(e, "import_not_found"),
  );
});

Deno.test("importing a directory is an error naming it", async () => {
  await using t = await tree({ "d/x.txt": "x" });
  await assert.rejects(
    compileText("import: d", isolated(t.path)),
    (e) => isScoutError(e, "invalid_input") && /"d": it is a directory/.test(e.message),
  );
});

Deno.test("an http import is fetched (loopback server)", async () => {
  const server = createServer((req, res) => {
    if (req.url === "/remote.chat") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("system:\n\nremote system\n\nuser: remote q\n");
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  try {
    const o = isolated("/");
    const out = await compileText(`import: http://127.0.0.1:${port}/remote.chat`, o);
    assert.deepEqual(rc(out), ["system:remote system", "user:remote q"]);
    await assert.rejects(
      compileText(`user: a\nimport: http://127.0.0.1:${port}/missing.chat`, o),
      (e) => isScoutError(e, "io") && /HTTP 404/.test(e.message) && e.line === 2,
    );
  } finally {
    await new Promise((r) => server.close(r));
  }
});

Deno.test("unknown roles inside an imported file name that file and line", async () => {
  await using t = await tree({ "part.chat": "user: ok\n\nwhatever: nope\n" });
  await assert.rejects(
    compileText("import: part.chat", isolated(t.path)),
    (e) => isScoutError(e, "unknown_role") && e.file === "part.chat" && e.line === 3,
  );
});
