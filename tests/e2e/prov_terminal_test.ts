/**
 * `llm prov`'s progress line at a real terminal (a pty): on a narrow one its
 * counts show, not its prefix alone, and a Ctrl-C typed during the walk
 * leaves no line behind (R141-7).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, buildBinary, runMain, tempDir } from "../support/cli.ts";
import { atTerminal } from "../support/pty.ts";
import { walkCount } from "../../src/cli/llm_prov.ts";

Deno.test("llm prov: the progress text drops its prefix, then words, to fit a narrow terminal; the counts always show (R141-7)", async () => {
  assert.equal(walkCount(437, 12, 0), "scout-ai: prov: 437 records, 12 chats read…");
  assert.equal(walkCount(437, 12, 80), "scout-ai: prov: 437 records, 12 chats read…");
  assert.equal(walkCount(437, 12, 30), "437 records, 12 chats read…");
  assert.equal(walkCount(437, 12, 25), "437 records, 12 chats");
  assert.equal(walkCount(437, 12, 20), "437 rec, 12 chats");
  assert.equal(walkCount(123456, 1234, 10), "123456 rec, 1234 chats"); // the line cuts it
  await using d = await tempDir();
  writeFileSync(join(d.path, "a.chat"), "user: q\n\nassistant: a\n");
  const r = await runMain(["llm", "prov", "a.chat"], {
    cwd: d.path,
    env: { NO_COLOR: "1", SCOUT_HOME: d.path },
    tty: true,
    columns: 20,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "\r\x1b[K1 records, 1 chats\r\x1b[K");
});

/** A store whose walk takes a while: `n` jobs, each depending on the `k` before it. */
function denseStore(dir: string, n: number, k: number): void {
  mkdirSync(join(dir, "jobs/W/t"), { recursive: true });
  for (let i = 0; i < n; i++) {
    const deps = Array.from({ length: Math.min(i, k) }, (_, j) => `W/t/j${i - 1 - j}`);
    writeFileSync(join(dir, `jobs/W/t/j${i}`), "done\n");
    writeFileSync(
      join(dir, `jobs/W/t/j${i}.info`),
      JSON.stringify({ status: "done", dependencies: deps }),
    );
  }
  writeFileSync(join(dir, "root.chat"), `user: q\n\nmeta: job=W/t/j${n - 1}\n\nassistant: a\n`);
}

Deno.test("llm prov in the binary: a Ctrl-C during the walk erases the progress line, exit 130 (R141-7)", async () => {
  await buildBinary();
  await using d = await tempDir();
  denseStore(d.path, 800, 100);
  const run = await atTerminal([BINARY, "llm", "prov", "root.chat", "-J", "jobs", "--flow"], {
    cwd: d.path,
    env: { SCOUT_HOME: d.path, HOME: d.path, NO_COLOR: "1" },
    steps: [{ after: "records", type: "\x03" }],
  });
  assert.equal(run.code, 130, run.screen);
  // the walk's line, the terminal's ^C, then the erase: nothing left on the line
  assert.ok(run.screen.startsWith("\r\x1b[K"), JSON.stringify(run.screen));
  assert.match(run.screen.slice(4), /^scout-ai: prov: \d+ records, \d+ chats read…/);
  assert.ok(run.screen.endsWith("^C\r\x1b[K"), JSON.stringify(run.screen));
});
