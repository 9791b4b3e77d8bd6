/**
 * A run that ends with no file descriptor left (a low `ulimit -n`) still
 * keeps what it produced (R119-5): the save waits for descriptors to be
 * freed (about 3 s), and when none are, the chat's new messages are printed
 * on stderr to be appended by hand, rather than lost. Real `EMFILE`: a child
 * process under `ulimit -n 256` exhausts its own descriptors while the
 * loopback provider answers (`support/fd_exhaust_child.ts`).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DENO, ROOT, runCommand, tempDir } from "../support/cli.ts";

const CHILD = join(ROOT, "tests", "support", "fd_exhaust_child.ts");

/** The child's `llm ask -o out.chat` in `dir`, its descriptors freed after `release` ms (or never). */
async function askExhausted(dir: string, release: string) {
  const r = await runCommand(
    "bash",
    ["-c", 'ulimit -n 256 && exec "$0" run -q -A "$1" "$2" "$3"', DENO, CHILD, dir, release],
    { cwd: ROOT },
  );
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { code: number; stdout: string; stderr: string };
}

Deno.test("out of descriptors at the save: freed within a few seconds, the chat is written", async () => {
  await using t = await tempDir();
  const r = await askExhausted(t.path, "300");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "the answer\n");
  assert.equal(r.stderr, "");
  assert.match(
    readFileSync(join(t.path, "out.chat"), "utf8"),
    /^user:\n\nCapital of France\?\n\n[^]*assistant:\n\nthe answer\n$/,
  );
});

Deno.test("out of descriptors for good: the unsaved messages are printed on stderr", async () => {
  await using t = await tempDir();
  const r = await askExhausted(t.path, "never");
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "the answer\n"); // the answer is printed, as for any failed save
  assert.equal(existsSync(join(t.path, "out.chat")), false);
  const [head, ...rest] = r.stderr.split("\n");
  assert.equal(
    head,
    'scout-ai: Cannot save the chat to "out.chat" (too many open files): ' +
      "its new messages follow, to append to it by hand",
  );
  const tail = rest.join("\n");
  assert.match(tail, /^user:\n\nCapital of France\?\n\n[^]*assistant:\n\nthe answer\n/);
  assert.match(tail, /\nscout-ai: Cannot create the lock ".*": too many open files\n$/);
});
