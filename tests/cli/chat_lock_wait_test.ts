/**
 * A save waiting on the chat's persist lock says so (R148-1): a `kill -9`
 * between the lock's `O_EXCL` create and its text leaves an empty lock, which
 * names no process and so is only taken over once unchanged for the stale
 * age; the next `-o` run to that chat waited that long printing nothing.
 * Real lock file, real CLI subprocess, a loopback provider.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { scoutBash, shellQuote } from "../support/scout_bash.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { lockPathFor } from "../../src/workflow/store.ts";

Deno.test("an empty persist lock on a -o chat: the save's wait is told on stderr, then the answer is saved (R148-1)", async () => {
  await using d = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "the answer" }) });
  const chat = join(realpathSync(d.path), "s4.chat");
  writeFileSync(chat, "user:\n\nhi\n");
  const locks = join(d.path, "home", "tmp", "persist_locks");
  mkdirSync(locks, { recursive: true });
  const lock = lockPathFor(chat, locks);
  // fresh: stale once unchanged for SCOUT_LOCK_MAX_AGE (10 s), the wait told after 3 s
  writeFileSync(lock, "");
  const r = await scoutBash(
    `SCOUT_LOCK_MAX_AGE=10 OPENAI_API_KEY=sk-x scout llm ask -b openai ` +
      `-O url=${shellQuote(srv.url)} -m m -c s4.chat -o s4.chat x; echo "exit $?"`,
    d.path,
    40,
  );
  assert.match(r.stdout, /^exit 0$/m, r.stderr);
  // before: nothing on stderr for the whole wait
  assert.ok(
    r.stderr.includes(
      `scout-ai: warning: Saving the chat "${chat}": waiting for lock "${lock}" ` +
        `(no holder written: taken over once unchanged for 10 s)`,
    ),
    r.stderr,
  );
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  assert.match(readFileSync(chat, "utf8"), /the answer/);
});
