/**
 * `-o` paths as long as the system takes (R119-2): a chat whose path is up to
 * PATH_MAX - 1 bytes is saved (its temp file's name is cut so that its path
 * fits too); one in a directory whose path leaves no room for any temp file
 * is refused before anything is asked, naming that cause.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dirOfLength } from "../support/long_path.ts";
import { setup } from "./llm_ask_support.ts";

for (const total of [4074, 4089, 4095]) {
  Deno.test(`llm ask -o: a chat path of ${total} bytes is saved (R119-2)`, async () => {
    await using t = await setup();
    const name = `${"c".repeat(50)}.chat`; // 55 bytes
    const out = join(dirOfLength(t.dir.path, total - 1 - name.length), name);
    assert.equal(out.length, total);
    t.srv.script({ text: "saved" });
    const r = await t.run(["ask", ...t.flags, "--no-cache", "-o", out, "q"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "saved\n");
    assert.match(readFileSync(out, "utf8"), /^user:\n\nq\n\n[^]*assistant:\n\nsaved\n$/);
  });
}

Deno.test("llm ask -o: a directory leaving no room for the temp file is refused before the ask (R119-2)", async () => {
  await using t = await setup();
  const out = join(dirOfLength(t.dir.path, 4085), "short.ch"); // 4094 bytes
  const r = await t.run(["ask", ...t.flags, "--no-cache", "-o", out, "q"]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `scout-ai: Cannot write -o "${out}": its directory's path leaves no room within the system's ` +
      "path limit for the temp file an atomic write makes beside it (4095 bytes)\n",
  );
  assert.equal(t.srv.requests.length, 0);
});
