/**
 * The binary under a low descriptor limit (R119-5): Boss asks eight Helpers
 * at once (`ASK_AGENTS=8`) under `ulimit -n 16`. Bun's fetch kept every
 * connection those asks opened, idle, until the process ended; they held
 * every descriptor left, and the finished run's chat could not be saved
 * ("Cannot create the lock …: too many open files"). The save now closes the
 * idle connections and saves; a Helper's connection refused for want of a
 * descriptor is told as such, not as a typo in the url.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, runCommand, tempDir } from "../support/cli.ts";
import { bossSociety } from "../support/boss_society.ts";

// descriptors above stderr the test runner may pass down are closed: the limit is the binary's own
const SCRIPT =
  'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; ' +
  'ulimit -n 16 && exec "$0" agent ask Boss --no-cache -o boss.chat go';

Deno.test("binary: eight specialists under ulimit -n 16, the finished run's chat is saved", async () => {
  await buildBinary();
  await using t = await tempDir();
  await using _srv = await bossSociety(t.path, "helper answer");
  const r = await runCommand("bash", ["-c", SCRIPT, BINARY], {
    cwd: t.path,
    env: { SCOUT_HOME: join(t.path, "home"), OPENAI_API_KEY: "sk-x", ASK_AGENTS: "8" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "boss final\n");
  assert.doesNotMatch(r.stderr, /typo in the url|Cannot create the lock/);
  const chat = readFileSync(join(t.path, "boss.chat"), "utf8");
  assert.match(chat, /^user:\n\ngo\n/);
  assert.equal(chat.match(/^function_call_output: .*"content":"helper answer"/gm)?.length, 8, chat);
  assert.match(chat, /assistant:\n\nboss final\n$/);
});
