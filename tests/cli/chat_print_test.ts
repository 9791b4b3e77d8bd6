import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runMain, tempDir } from "../support/cli.ts";

Deno.test("chat print: JSON messages in, chat text out (newline-terminated)", async () => {
  const r = await runMain(["chat", "print", "-"], {
    stdin: JSON.stringify([
      { role: "system", content: "you are a robot" },
      { role: "user", content: "hi\nuser: not a header" },
      { role: "function_call", content: { name: "f" } },
    ]),
  });
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  assert.equal(
    r.stdout,
    '\nsystem:\n\nyou are a robot\n\nuser:\n\nhi\n\\user: not a header\n\nfunction_call:\n\n{"name":"f"}\n',
  );
});

Deno.test("chat parse --json | chat print | chat parse --json is stable", async () => {
  const file = join(ROOT, "fixtures", "chats", "tool_calls.chat");
  const parsed = await runMain(["chat", "parse", "--json", file]);
  const printed = await runMain(["chat", "print"], { stdin: parsed.stdout });
  const again = await runMain(["chat", "parse", "--json", "-"], { stdin: printed.stdout });
  assert.equal(again.code, 0);
  assert.deepEqual(JSON.parse(again.stdout), JSON.parse(parsed.stdout));
});

Deno.test("chat print: bad JSON and wrong shapes → one-line errors, exit 1", async () => {
  const cases: [string, RegExp][] = [
    ["{not json", /^scout-ai: Invalid JSON in <stdin>: /],
    ['{"role":"user"}', /^scout-ai: Expected a JSON array of messages in <stdin>, got an object$/],
    ['["x"]', /^scout-ai: Message 0 in <stdin> is a string, not an object$/],
    ['[{"role":"user"},{"content":"x"}]', /^scout-ai: Message 1 in <stdin> has no string "role"$/],
    [
      '[{"role":"user","content":"a"},{"role":"my role","content":"b"}]',
      /^scout-ai: Cannot print message 1 in <stdin>: role "my role" is not a header word \[a-z0-9_\]\+$/,
    ],
  ];
  for (const [stdin, re] of cases) {
    const r = await runMain(["chat", "print", "-"], { stdin });
    assert.equal(r.code, 1, stdin);
    assert.equal(r.stdout, "");
    assert.match(r.stderr.trimEnd(), re);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, "one line, no stack");
  }
});

Deno.test("chat print FILE: a role that is not a header word names the file (R137-8)", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "role.json"), '[{"role":"Bad Role","content":"x"}]');
  const r = await runMain(["chat", "print", "role.json"], { cwd: dir.path });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    'scout-ai: Cannot print message 0 in role.json: role "Bad Role" is not a header word ' +
      "[a-z0-9_]+\n",
  );
});

Deno.test("chat print FILE: missing file names it", async () => {
  await using dir = await tempDir();
  const r = await runMain(["chat", "print", "messages.json"], { cwd: dir.path });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'scout-ai: No such file: "messages.json"\n');
});

Deno.test("chat print: an error whose text spans lines (V8 JSON message) prints as one line", async () => {
  const r = await runMain(["chat", "print", "-"], { stdin: "not json\n" });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^scout-ai: Invalid JSON in <stdin>: [^\n]*\n$/);
});
