/**
 * A failed read or write says the file's name once, the name the user gave:
 * a read failing with EIO (`/proc/self/mem`) is not "Cannot read X: Cannot
 * read X: …", and a failed atomic write does not name its temp file (R88-10).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic, writeFileAtomicSync } from "../../src/util/fs.ts";
import { writeInPlaceSync } from "../../src/util/in_place.ts";
import { runScout, tempDir } from "../support/cli.ts";

// opens, then every read fails with EIO; read in a subprocess run as `deno task scout` runs (-A):
// a run with fewer permissions than all would be refused /proc before the read
const MEM = "/proc/self/mem";

function once(text: string, what: string): void {
  assert.equal(text.split(what).length - 1, 1, `${what} said once in: ${text}`);
}

Deno.test("a read failing with EIO names the file once: -f, file:, import: (R88-10)", async () => {
  await using d = await tempDir();
  const env = { SCOUT_HOME: join(d.path, "home") };
  const f = await runScout(["llm", "ask", "-f", MEM, "hi"], { env, cwd: d.path });
  assert.equal(f.code, 1);
  assert.match(f.stderr, /Cannot read "\/proc\/self\/mem": EIO/);
  once(f.stderr, "Cannot read");
  for (const [line, said] of [["file", "Cannot read"], ["import", "Cannot read import"]]) {
    const chat = join(d.path, `${line}.chat`);
    await Deno.writeTextFile(chat, `${line}: ${MEM}\n\nuser: hi\n`);
    const r = await runScout(["chat", "compile", chat], { env, cwd: d.path });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`${said} "/proc/self/mem": EIO`));
    once(r.stderr, "Cannot read");
  }
});

Deno.test("a failed atomic write names the file written, not its temp file (R88-10)", async () => {
  await using d = await tempDir();
  const file = join(d.path, "file");
  await Deno.writeTextFile(file, "");
  const target = join(file, "scout-test.svg"); // its directory is a file: ENOTDIR, even for root
  const errors: unknown[] = [];
  try {
    writeFileAtomicSync(target, "x");
  } catch (e) {
    errors.push(e);
  }
  await writeFileAtomic(target, "x").catch((e) => errors.push(e));
  try {
    writeInPlaceSync(target, new Uint8Array([1]));
  } catch (e) {
    errors.push(e);
  }
  assert.equal(errors.length, 3);
  for (const e of errors) {
    const message = (e as Error).message;
    assert.ok(message.startsWith(`Cannot write "${target}": `), message);
    assert.doesNotMatch(message, /\.tmp/);
    once(message, "scout-test.svg");
  }
});
