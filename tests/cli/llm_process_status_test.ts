/**
 * A queue worker's state is told in status lines, not warnings (R110-10):
 * `llm process DIR &` says `process: watching DIR (Ctrl-C stops)` on stderr
 * with no terminal (a cluster job's log keeps it), `--log 6` (warnings
 * hidden) leaves it, and nothing says `warning:`; each request is logged
 * the same way, terminal or not (R167-9), and `--once` exits 1 when one failed. Real workers: from source as subprocesses with
 * stderr on a pipe, and in-process (`runMain`) with a terminal's stderr.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runMain, spawnScout, tempDir } from "../support/cli.ts";
import { md5hex } from "../../src/util/hash.ts";

/** Starts a watching worker, waits for its first stderr line, stops it (SIGTERM): all of stderr. */
async function watchAndStop(dir: string, kind: string, flags: string[]): Promise<string> {
  const queue = join(dir, kind);
  await Deno.mkdir(queue);
  const child = spawnScout([...flags, "llm", kind, queue], {
    cwd: dir,
    env: { SCOUT_HOME: join(dir, "home"), HOME: dir },
  });
  const out = child.stdout.text();
  let seen = "";
  const decoder = new TextDecoder();
  const reader = child.stderr.getReader();
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    while (!seen.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    child.kill("SIGTERM");
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      seen += decoder.decode(r.value, { stream: true });
    }
    const status = await child.status;
    assert.equal(status.code, 0, seen);
    assert.equal(await out, "");
  } finally {
    clearTimeout(timer);
  }
  return seen;
}

for (const kind of ["process", "process_queries"]) {
  Deno.test(`llm ${kind} with stderr on a pipe: "watching" is a status line, --log 6 or not (R110-10)`, async () => {
    await using d = await tempDir();
    for (const flags of [[], ["--log", "6"]]) {
      const queue = join(d.path, kind);
      const stderr = await watchAndStop(d.path, kind, flags);
      assert.equal(
        stderr,
        `${kind}: watching ${queue} (Ctrl-C stops)\n${kind}: 0 answered, 0 failed (${queue})\n`,
      );
      await Deno.remove(queue, { recursive: true });
    }
  });
}

Deno.test("llm process on a terminal: each request is a status line too, --log 6 or not (R110-10)", async () => {
  await using d = await tempDir();
  const queue = join(d.path, "queue");
  const env = { SCOUT_HOME: join(d.path, "home"), HOME: d.path, NO_COLOR: "1" };
  for (const flags of [[], ["--log", "6"]]) {
    await Deno.mkdir(queue, { recursive: true });
    await Deno.writeTextFile(
      join(queue, `${md5hex("bad")}.json`),
      JSON.stringify({ question: 42 }),
    );
    const r = await runMain([...flags, "llm", "process", "--once", queue], {
      env,
      cwd: d.path,
      tty: true,
    });
    assert.equal(r.code, 1, r.stderr); // --once with a failed request (R167-9)
    assert.match(
      r.stderr,
      new RegExp(`^process: failed ${md5hex("bad")}: .*"question" must be chat text`),
    );
    assert.doesNotMatch(r.stderr, /warning/);
    assert.ok(r.stderr.endsWith(`process: 0 answered, 1 failed (${queue})\n`), r.stderr);
    await Deno.remove(queue, { recursive: true });
  }
});

Deno.test("llm process --once with stderr on a pipe: one plain line per request; a failure exits 1 (R167-9)", async () => {
  await using d = await tempDir();
  const queue = join(d.path, "queue");
  await Deno.mkdir(queue);
  const bad = md5hex("bad");
  await Deno.writeTextFile(join(queue, `${bad}.json`), "{not json");
  // settled: an unparsable request changed in the last 5 s is left for a later pass (R167-5)
  const old = new Date(Date.now() - 60_000);
  await Deno.utime(join(queue, `${bad}.json`), old, old);
  const out = await spawnScout(["llm", "process", "--once", queue], {
    cwd: d.path,
    env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path, NO_COLOR: "1" },
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, stderr);
  assert.match(stderr, new RegExp(`^process: failed ${bad}: .*JSON`, "m"));
  assert.ok(stderr.endsWith(`process: 0 answered, 1 failed (${queue})\n`), stderr);
  assert.ok(!stderr.includes("\x1b"), stderr); // no colour, no redraws
});
