import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, runScout, tempDir } from "../support/cli.ts";

const FIXTURES = join(ROOT, "fixtures", "chats");

Deno.test("chat parse --json: one {role, content} per line, valid JSON", async () => {
  const r = await runMain(["chat", "parse", "--json", join(FIXTURES, "basic.chat")]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  const lines = r.stdout.split("\n");
  assert.equal(lines[0], "[");
  assert.equal(lines[1], '  {"role":"user","content":""},');
  assert.equal(lines.at(-1), "", "ends with a newline");
  const data = JSON.parse(r.stdout);
  assert.equal(data.length, 5);
  assert.deepEqual(data[1], {
    role: "system",
    content: "You are a careful research assistant. Answer briefly.",
  });
});

Deno.test("chat parse --json on stdin (- and piped) and on empty input", async () => {
  for (const args of [["chat", "parse", "--json", "-"], ["chat", "parse", "--json"]]) {
    const r = await runMain(args, { stdin: "system:\n\nx\n\nuser: hi" });
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.stdout), [
      { role: "user", content: "" },
      { role: "system", content: "x" },
      { role: "user", content: "hi" },
    ]);
  }
  const empty = await runMain(["chat", "parse", "--json", "-"], { stdin: "" });
  assert.equal(empty.stdout, "[]\n");
});

Deno.test("chat parse listing: index, role, indented content, control characters visible", async () => {
  const r = await runMain(["chat", "parse", "-"], {
    stdin: "system:\n\nline 1\nline 2\n\nuser: a\x00b\x1b[31m",
    env: { NO_COLOR: "1" },
  });
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    "0  user    (empty)\n" +
      "1  system  line 1\n" +
      "           line 2\n" +
      "2  user    a\u2400b\u241b[31m\n",
  );
  const none = await runMain(["chat", "parse", "-"], { stdin: "\n\n" });
  assert.equal(none.stdout, "(no messages)\n");
});

Deno.test("chat parse: missing file and directory → one-line error naming it, exit 1", async () => {
  await using dir = await tempDir();
  const missing = await runMain(["chat", "parse", "nope.chat"], { cwd: dir.path });
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, "");
  assert.equal(missing.stderr, 'scout-ai: No such file: "nope.chat"\n');
  const isDir = await runMain(["chat", "parse", "."], { cwd: dir.path });
  assert.equal(isDir.code, 1);
  assert.equal(isDir.stderr, 'scout-ai: Is a directory, not a file: "."\n');
});

Deno.test("chat parse: no FILE on a terminal is a usage error (exit 2)", async () => {
  const r = await runMain(["chat", "parse"], { tty: true });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Missing FILE argument/);
});

Deno.test("chat parse: unknown option → exit 2, with the usage hint every usage error ends with", async () => {
  const r = await runMain(["chat", "parse", "--nope", "x"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "scout-ai: unknown option '--nope'\n(run with --help for usage)\n");
  // one of our own checks' usage errors ends the same way
  const own = await runMain(["chat", "parse"], { tty: true });
  assert.equal(own.code, 2);
  assert.match(own.stderr, /\n\(run with --help for usage\)\n$/);
});

Deno.test("chat parse: invalid UTF-8 is replaced by U+FFFD with a warning on stderr", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "bad.chat");
  await Deno.writeFile(
    path,
    new Uint8Array([0x75, 0x73, 0x65, 0x72, 0x3a, 0x20, 0x61, 0xff, 0x62]),
  );
  const r = await runMain(["chat", "parse", "--json", path]);
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.stdout), [
    { role: "user", content: "" },
    { role: "user", content: "a\uFFFDb" },
  ]);
  assert.match(r.stderr, /warning: .*bad\.chat: invalid UTF-8 replaced by U\+FFFD/);
});

Deno.test("chat parse: a genuine U+FFFD in valid UTF-8 is content, not a warning", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "ok.chat");
  await Deno.writeTextFile(path, "user: replacement char \uFFFD is fine");
  const r = await runMain(["chat", "parse", "--json", path]);
  assert.equal(r.code, 0);
  assert.equal(JSON.parse(r.stdout)[1].content, "replacement char \uFFFD is fine");
  assert.equal(r.stderr, "");
});

Deno.test("chat parse: invalid UTF-8 on stdin (real process) warns too", async () => {
  const r = await runScout(["chat", "parse", "--json", "-"], {
    stdin: new Uint8Array([0x68, 0x69, 0xc3, 0x28]),
  });
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.stdout), [{ role: "user", content: "hi\uFFFD(" }]);
  assert.match(r.stderr, /<stdin>: invalid UTF-8 replaced by U\+FFFD/);
});

Deno.test("chat parse --help teaches with examples", async () => {
  const r = await runMain(["chat", "parse", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Examples[^\n]*:/);
  assert.match(r.stdout, /--json/);
});

Deno.test("chat parse listing of a 200,000-message chat (no stack overflow sizing the columns)", async () => {
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`user: m${i}`);
  lines.push("a_very_long_role_name_beyond_the_column: x");
  const r = await runMain(["chat", "parse", "-"], {
    stdin: lines.join("\n"),
    env: { NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.split("\n");
  assert.equal(out.length, 200_003); // leading empty message + 200,001 + final newline
  assert.equal(out[1], "     1  user                      m0");
  assert.equal(out[200_001], "200001  a_very_long_role_name_beyond_the_column  x");
});

Deno.test("a command group without a subcommand shows its help on stderr and exits 2; help chat exits 0", async () => {
  const bare = await runMain(["chat"]);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /Usage: scout-ai chat/);
  const asked = await runMain(["help", "chat"]);
  assert.equal(asked.code, 0);
  assert.match(asked.stdout, /Usage: scout-ai chat/);
  assert.equal((await runMain(["chat", "--help"])).code, 0);
});
