import assert from "node:assert/strict";
import { compile, compileFile, compileText } from "../../src/chat/compile.ts";
import { defaultChatDirs, findFile } from "../../src/chat/find_file.ts";
import { isPathAllowed } from "../../src/config/allow_paths.ts";
import { isScoutError } from "../../src/errors.ts";
import type { Message } from "../../src/chat/types.ts";
import { isolated, rc, tree } from "./compile_support.ts";

Deno.test("file: becomes a <file> user message named by the reference as written", async () => {
  await using t = await tree({
    "chat/main.chat": "user: look\nfile:   data/a.txt  \nfile: b.md\n",
    "chat/data/a.txt": "line 1\nline 2",
    "chat/b.md": "ends with newline\n",
  });
  const out = await compileFile("chat/main.chat", isolated(t.path));
  assert.deepEqual(rc(out), [
    "user:look",
    'user:<file name="data/a.txt">\nline 1\nline 2\n</file>',
    'user:<file name="b.md">\nends with newline\n\n</file>',
  ]);
});

Deno.test("directory: one <file> per regular file, sorted, dot entries skipped, absolute names", async () => {
  await using t = await tree({
    "docs/b.txt": "B",
    "docs/a.txt": "A",
    "docs/sub/c.txt": "C",
    "docs/.hidden": "H",
    "docs/.git/config": "G",
  });
  const out = await compileText("directory: docs", isolated(t.path));
  assert.deepEqual(rc(out), [
    `user:<file name="${t.at("docs/a.txt")}">\nA\n</file>`,
    `user:<file name="${t.at("docs/b.txt")}">\nB\n</file>`,
    `user:<file name="${t.at("docs/sub/c.txt")}">\nC\n</file>`,
  ]);
});

Deno.test("directory: files in Ruby's Dir.glob order: byte order per directory, depth first; linked dirs not followed (R80-7)", async () => {
  // Ruby 3.1 `LLM.chat("directory: d")` on this tree names, in order:
  // d/B/z d/Z d/a/sub/s d/a/x "d/a b" d/a.b/q d/a.txt d/a_ d/flink d/é/e d/～ d/😀
  const names = ["a/x", "a/sub/s", "a/.ax", "a.b/q", "a.txt", "a b", "a_", "B/z", "Z"];
  const files = ["é/e", "～", "😀", ".hid/h", ".dot", ...names];
  await using t = await tree(Object.fromEntries(files.map((f) => [`d/${f}`, f])));
  await Deno.symlink("a", t.at("d/link"));
  await Deno.symlink("a.txt", t.at("d/flink"));
  await Deno.mkdir(t.at("d/deep"));
  await Deno.symlink("../a", t.at("d/deep/up"));
  const out = await compileText("directory: d", isolated(t.path));
  const listed = rc(out).map((m) => m.match(/name="([^"]*)"/)![1]!.slice(t.path.length + 3));
  assert.deepEqual(listed, [
    "B/z",
    "Z",
    "a/sub/s",
    "a/x",
    "a b",
    "a.b/q",
    "a.txt",
    "a_",
    "flink",
    "é/e",
    "～",
    "😀",
  ]);
  assert.match(rc(out)[8]!, /\na\.txt\n/); // the link's target's text
  // a dangling link is listed, and reading it fails (Ruby: "File not found")
  await Deno.symlink("nowhere", t.at("d/broken"));
  await assert.rejects(
    compileText("directory: d", isolated(t.path)),
    (e) => isScoutError(e, "io") && /Cannot read ".*\/d\/broken"/.test(e.message),
  );
});

Deno.test("pdf:/image: get the resolved path; the caller's objects are not touched (D15)", async () => {
  await using t = await tree({ "img/cat.png": "PNG", "doc.pdf": "%PDF" });
  const input: Message[] = [
    { role: "image", content: "img/cat.png" },
    { role: "pdf", content: " doc.pdf " },
    { role: "image", content: "https://example.org/x.png" },
  ];
  const out = await compile(input, isolated(t.path));
  assert.deepEqual(rc(out), [
    `image:${t.at("img/cat.png")}`,
    `pdf:${t.at("doc.pdf")}`,
    "image:https://example.org/x.png",
  ]);
  assert.equal(input[0]!.content, "img/cat.png");
  assert.equal(input[1]!.content, " doc.pdf ");
});

Deno.test("a missing file names the reference and the chat file and line", async () => {
  await using t = await tree({ "s.chat": "system:\n\nS\n\nuser: x\nimage: nope.png\n" });
  await assert.rejects(compileFile("s.chat", isolated(t.path)), (e) => {
    assert.ok(isScoutError(e, "file_not_found"));
    assert.equal(e.message, 'File not found: "nope.png"');
    assert.equal(e.file, "s.chat");
    assert.equal(e.line, 6);
    return true;
  });
  await assert.rejects(
    compileText("user: a\n\nfile: missing.txt", { ...isolated(t.path), name: "<stdin>" }),
    (e) => isScoutError(e, "file_not_found") && e.file === "<stdin>" && e.line === 3,
  );
});

Deno.test("file: on a directory and directory: on a file are errors with a hint", async () => {
  await using t = await tree({ "d/x.txt": "x", "f.txt": "f" });
  const o = isolated(t.path);
  await assert.rejects(
    compileText("file: d", o),
    (e) => isScoutError(e, "invalid_input") && /use directory:/.test(e.message),
  );
  await assert.rejects(
    compileText("directory: f.txt", o),
    (e) => isScoutError(e, "invalid_input") && /Not a directory: "f.txt"/.test(e.message),
  );
});

Deno.test("files before a clear are never read", async () => {
  await using t = await tree({});
  assert.deepEqual(
    rc(await compileText("file: missing.txt\nclear: x\nuser: y", isolated(t.path))),
    [
      "user:y",
    ],
  );
});

Deno.test("allow_path / allow_read_path feed the allow-lists, relative to the chat", async () => {
  await using t = await tree({
    "proj/s.chat": "allow_path: out\nallow_read_path: /etc\nuser: go\n",
  });
  const o = isolated(t.path);
  const out = await compileFile("proj/s.chat", o);
  assert.deepEqual(rc(out), ["user:go"]);
  assert.deepEqual(o.allowPaths.write, [t.at("proj/out")]);
  assert.deepEqual(o.allowPaths.read, ["/etc"]);
  assert.ok(isPathAllowed(o.allowPaths, t.at("proj/out/x.txt"), "write"));
  assert.ok(isPathAllowed(o.allowPaths, t.at("proj/out/x.txt"), "read"));
  assert.ok(isPathAllowed(o.allowPaths, "/etc/hosts", "read"));
  assert.ok(!isPathAllowed(o.allowPaths, "/etc/hosts", "write"));
  assert.ok(!isPathAllowed(o.allowPaths, t.at("proj/out/../secret"), "read"));
  assert.ok(!isPathAllowed(o.allowPaths, t.at("proj/outside"), "read"));
});

Deno.test("findFile order and misses", async () => {
  await using t = await tree({
    "a/ref.txt": "next to origin",
    "ref.txt": "cwd",
    "chats/only.chat": "x",
  });
  const opts = { cwd: t.path, env: { HOME: t.path, SCOUT_HOME: t.at("sh") } };
  assert.equal(findFile("ref.txt", { ...opts, origin: t.at("a/o.chat") }), t.at("a/ref.txt"));
  assert.equal(findFile("ref.txt", opts), t.at("ref.txt"));
  assert.equal(findFile("only.chat", opts), t.at("chats/only.chat"));
  assert.equal(findFile("a", opts), t.at("a")); // directories count
  assert.equal(findFile("nope", opts), null);
  assert.equal(findFile("", opts), null);
  assert.equal(findFile("ssh://host/x", opts), "ssh://host/x");
  assert.deepEqual(defaultChatDirs("/w", { SCOUT_HOME: "/s" }), ["/w/chats", "/s/chats"]);
});

Deno.test("a custom reader replaces the file system", async () => {
  const files: Record<string, string> = {
    "/virtual/a.chat": "user: from a\nfile: b.txt\n",
    "/virtual/b.txt": "B",
  };
  const reader = {
    kind: (p: string) => (p in files ? "file" as const : null),
    readText: (p: string) => Promise.resolve(files[p]!),
    listFiles: () => Promise.resolve([]),
  };
  const out = await compileFile("a.chat", { ...isolated("/virtual"), reader });
  assert.deepEqual(rc(out), ["user:from a", 'user:<file name="b.txt">\nB\n</file>']);
});
