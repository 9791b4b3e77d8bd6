/**
 * A failure snapshot (`$SCOUT_HOME/tmp/ask/<ts>.chat`, `.options.json`,
 * `.meta`) holds the chat with its `file:` contents: it is made 0600, like
 * the user's own debugging aid it is, whatever the umask (R97-5).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { setup } from "./llm_ask_support.ts";

Deno.test("a failed ask's snapshot files are mode 0600, so a 0600 file: line's secret stays private (R97-5)", async () => {
  await using t = await setup();
  const secret = join(t.dir.path, "secret.txt");
  await Deno.writeTextFile(secret, "TOP-SECRET-97\n", { mode: 0o600 });
  await Deno.chmod(secret, 0o600);
  await Deno.writeTextFile(join(t.dir.path, "q.chat"), `file: ${secret}\n\nuser: what is it?\n`);
  t.srv.script({ status: 500, message: "Upstream down" });
  const r = await t.run(["ask", ...t.flags, "-O", "max_retries=0", "-c", "q.chat", "--no-cache"]);
  assert.equal(r.code, 1);
  const snapshot = /\(snapshot: (\S+\.chat)\)/.exec(r.stderr)?.[1];
  assert.ok(snapshot, r.stderr);
  assert.match(await Deno.readTextFile(snapshot), /TOP-SECRET-97/);
  const base = snapshot.slice(0, -".chat".length);
  for (const ext of [".chat", ".options.json", ".meta"]) {
    assert.equal((await Deno.stat(base + ext)).mode! & 0o777, 0o600, ext);
  }
});
