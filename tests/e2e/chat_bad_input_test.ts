/**
 * Bad input through the real CLI process (`deno task scout` equivalent):
 * documented behaviour, never a crash or a stack trace.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "../../src/chat/mod.ts";
import { BINARY, buildBinary, ROOT, runScout, tempDir } from "../support/cli.ts";

const FIXTURES = join(ROOT, "fixtures", "chats");

function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
}

Deno.test({
  name: "a 100 MB chat file (every fixture repeated) parses completely",
  sanitizeResources: false,
  fn: async () => {
    await using dir = await tempDir();
    const chunks: Uint8Array[] = [];
    for (const e of [...Deno.readDirSync(FIXTURES)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (e.name.endsWith(".chat")) chunks.push(await Deno.readFile(join(FIXTURES, e.name)));
    }
    const unit = new Uint8Array(chunks.reduce((n, c) => n + c.length + 1, 0));
    let off = 0;
    for (const c of chunks) {
      unit.set(c, off);
      unit[off + c.length] = 10;
      off += c.length + 1;
    }
    const copies = Math.ceil(100e6 / unit.length);
    const bytes = new Uint8Array(unit.length * copies);
    for (let i = 0; i < copies; i++) bytes.set(unit, i * unit.length);
    const path = join(dir.path, "big.chat");
    await Deno.writeFile(path, bytes);

    const r = await runScout(["chat", "parse", "--json", path]);
    assert.equal(r.code, 0, r.stderr.slice(0, 500));
    assert.match(r.stderr, /^scout-ai: warning: .*big\.chat: invalid UTF-8 replaced by U\+FFFD\n$/);
    const got = JSON.parse(r.stdout) as unknown[];
    const expected = parse(new TextDecoder().decode(bytes));
    assert.ok(expected.length > 100_000, `${expected.length} messages`);
    assert.equal(got.length, expected.length);
    assert.deepEqual(got.at(-1), expected.at(-1));
    assert.deepEqual(got[expected.length >> 1], expected[expected.length >> 1]);
  },
});

Deno.test("NUL bytes and invalid UTF-8: parsed, U+FFFD substituted, warning on stderr", async () => {
  const r = await runScout(["chat", "parse", "--json", join(FIXTURES, "bad_bytes.chat")]);
  assert.equal(r.code, 0);
  assert.equal(
    r.stderr,
    "scout-ai: warning: " + join(FIXTURES, "bad_bytes.chat") +
      ": invalid UTF-8 replaced by U+FFFD\n",
  );
  const chat = JSON.parse(r.stdout);
  assert.equal(chat[1].content.split("\n")[0], "NUL bytes: a\0b\0c");
  assert.match(chat[1].content, /Invalid UTF-8: \uFFFD\uFFFD and a truncated sequence \uFFFD /);
  assert.deepEqual(chat[2], { role: "assistant", content: "padded" });
});

Deno.test("random binary garbage never crashes the parser", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "garbage.chat");
  const bytes = new Uint8Array(2_000_000);
  let x = 12345;
  for (let i = 0; i < bytes.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  await Deno.writeFile(path, bytes);
  const r = await runScout(["chat", "parse", "--json", path]);
  assert.equal(r.code, 0);
  assertNoStack(r.stderr);
  assert.ok(Array.isArray(JSON.parse(r.stdout)));
});

Deno.test("a 20 MB file with no newline at all", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "oneline.chat");
  await Deno.writeTextFile(path, "user: " + "x".repeat(20_000_000));
  const r = await runScout(["chat", "parse", "--json", path]);
  assert.equal(r.code, 0);
  const chat = JSON.parse(r.stdout);
  assert.equal(chat.length, 2);
  assert.equal(chat[1].content.length, 20_000_000);
});

Deno.test("missing file, directory, unreadable JSON: one line naming it, exit 1, no stack", async () => {
  await using dir = await tempDir();
  const cases: [string[], string][] = [
    [["chat", "parse", "missing.chat"], 'scout-ai: No such file: "missing.chat"\n'],
    [["chat", "parse", "."], 'scout-ai: Is a directory, not a file: "."\n'],
    [["chat", "print", "missing.json"], 'scout-ai: No such file: "missing.json"\n'],
  ];
  for (const [args, stderr] of cases) {
    const r = await runScout(args, { cwd: dir.path });
    assert.equal(r.code, 1, args.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, stderr);
  }
  const bad = await runScout(["chat", "print", "-"], { stdin: "[{", cwd: dir.path });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^scout-ai: Invalid JSON in <stdin>: .*\n$/);
  const debug = await runScout(["--debug", "chat", "parse", "missing.chat"], { cwd: dir.path });
  assert.equal(debug.code, 1);
  assert.match(debug.stderr, /\n\s+at /, "--debug shows the stack");
});

Deno.test({
  name: "a closed stdout pipe (| head) ends quietly with exit 0 (source and binary)",
  sanitizeResources: false,
  fn: async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "long.chat");
    const one = await Deno.readTextFile(join(FIXTURES, "tool_calls.chat"));
    await Deno.writeTextFile(path, one.repeat(Math.ceil(5e6 / one.length)));
    await buildBinary();
    const scout = `"${Deno.execPath()}" run -q -A --config="${ROOT}/deno.json" "${ROOT}/cli.ts"`;
    for (const cli of [scout, `"${BINARY}"`]) {
      const out = await new Deno.Command("bash", {
        args: [
          "-c",
          `${cli} chat parse --json "$0" | head -c 10; echo "exit=\${PIPESTATUS[0]}" >&2`,
          path,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(new TextDecoder().decode(out.stdout), '[\n  {"role', cli);
      assert.equal(new TextDecoder().decode(out.stderr), "exit=0\n", cli);
    }
  },
});
