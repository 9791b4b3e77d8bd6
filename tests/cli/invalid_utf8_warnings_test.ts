/**
 * Invalid UTF-8 is replaced by U+FFFD with a warning (README), wherever a
 * command reads text: `-f` files, `file:` includes, the question from stdin,
 * workflow input files; once per file and command (R81-13).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain, runScout, tempDir } from "../support/cli.ts";

const WARNING = (name: string) => `scout-ai: warning: ${name}: invalid UTF-8 replaced by U+FFFD\n`;

function setUp(dir: string) {
  writeFileSync(
    join(dir, "bad.chat"),
    new Uint8Array([...Buffer.from("user: caf"), 0xe9, 0x20, 0xff, 0x0a]),
  );
  writeFileSync(join(dir, "garbage.bin"), new Uint8Array([0x78, 0xff, 0x0a]));
  writeFileSync(join(dir, "fg.chat"), "user:\n\nfile: garbage.bin\n\nfile: garbage.bin\n");
  writeFileSync(join(dir, "good.txt"), "café\n");
  const env = { NO_COLOR: "1", HOME: join(dir, "home"), SCOUT_HOME: join(dir, "scout") };
  return { cwd: dir, env };
}

Deno.test("-f files and file: includes warn of invalid UTF-8, once per file (R81-13)", async () => {
  await using d = await tempDir();
  const o = setUp(d.path);
  const f = await runMain(["llm", "ask", "-f", "bad.chat", "sum", "--dry-run"], o);
  assert.equal(f.code, 0, f.stderr);
  assert.equal(f.stderr, WARNING("bad.chat"));
  assert.match(f.stdout, /caf\uFFFD \uFFFD/);
  // the first -f fills the question's `...`, the second is attached: the same file, one warning
  const twice = await runMain(
    ["llm", "ask", "-f", "bad.chat", "-f", "bad.chat", "sum ...", "--dry-run"],
    o,
  );
  assert.equal(twice.stderr, WARNING("bad.chat"));
  const compiled = await runMain(["chat", "compile", "fg.chat"], o);
  assert.equal(compiled.code, 0, compiled.stderr);
  assert.equal(compiled.stderr, WARNING("garbage.bin"));
  const good = await runMain(["llm", "ask", "-f", "good.txt", "sum", "--dry-run"], o);
  assert.equal(good.stderr, "");
});

Deno.test("a workflow input read from a file warns of invalid UTF-8 (R81-13)", async () => {
  await using d = await tempDir();
  const o = setUp(d.path);
  const baking = join(ROOT, "fixtures", "workflows", "Baking");
  const r = await runMain(["workflow", "task", baking, "cake", "--toppings", "garbage.bin"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, WARNING("garbage.bin"));
  assert.match(r.stdout, /with x\uFFFD/);
});

Deno.test("a question read from stdin warns of invalid UTF-8 (R81-13)", async () => {
  await using d = await tempDir();
  const o = setUp(d.path);
  const stdin = new Uint8Array([...Buffer.from("caf"), 0xe9, 0x0a]);
  const r = await runScout(["llm", "ask", "--dry-run"], { ...o, stdin });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, WARNING("<stdin>"));
  assert.match(r.stdout, /caf\uFFFD/);
});
