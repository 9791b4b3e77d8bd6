/**
 * The queue worker (`src/llm/queue.ts`): a request whose answer fails is
 * answered with `{"error": …}` on disk, which the relay client reads — the
 * urls in that message without their credentials (R83-1).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runQueue } from "../../src/llm/queue.ts";
import { tempDir } from "../support/cli.ts";
import { md5hex } from "../../src/util/hash.ts";

/** Requests are named by an MD5 hex digest, as relay clients name them. */
const [Q1, OK, BAD] = ["q1", "ok", "bad"].map((s) => `${md5hex(s)}.json`) as [
  string,
  string,
  string,
];

Deno.test("a failed request's error answer names its url without the password or key (R83-1)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, Q1), JSON.stringify({ messages: [] }));
  const lines: string[] = [];
  const stats = await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    log: (l) => lines.push(l),
    answer: () => {
      throw new Error("Cannot reach http://bob:PW-7731@gpu:8000/v1?api_key=AK-5521: refused");
    },
  });
  assert.deepEqual(stats, { answered: 0, failed: 1 });
  const reply = JSON.parse(readFileSync(join(d.path, "reply", Q1), "utf8"));
  assert.equal(reply.error, "Cannot reach http://bob:***@gpu:8000/v1?api_key=***: refused");
  for (const dir of [d.path, join(d.path, "reply"), join(d.path, "failed")]) {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      if (!f.isFile()) continue;
      const text = readFileSync(join(dir, f.name), "utf8");
      assert.ok(!text.includes("PW-7731") && !text.includes("AK-5521"), f.name);
    }
  }
  assert.ok(!lines.join("\n").includes("PW-7731"));
});

Deno.test("answers and errors on disk write a lone surrogate as U+FFFD, not a \\ud83d escape (R162-1)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, OK), JSON.stringify({ messages: [] }));
  writeFileSync(join(d.path, BAD), JSON.stringify({ messages: [{ content: "x" }] }));
  await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    answer: (req) => {
      if ((req as { messages: unknown[] }).messages.length > 0) {
        return Promise.reject(new Error("no \ud83d here"));
      }
      return Promise.resolve({ choices: [{ message: { content: "half \ude00 a" } }] });
    },
  });
  const ok = readFileSync(join(d.path, "reply", OK), "utf8");
  const bad = readFileSync(join(d.path, "reply", BAD), "utf8");
  assert.equal(ok, '{"choices":[{"message":{"content":"half \ufffd a"}}]}');
  assert.equal(bad, '{"error":"no \ufffd here"}');
});

Deno.test("an answer that cannot be written puts the request back, says so, and backs off (R167-2)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, Q1), JSON.stringify({ messages: [] }));
  // reply/ made a file during the answer: its write fails (ENOTDIR), as on a full disk
  const blockReply = () => {
    Deno.removeSync(join(d.path, "reply"), { recursive: true });
    writeFileSync(join(d.path, "reply"), "");
  };
  const notes: string[] = [];
  const once = await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    notice: (l) => notes.push(l),
    answer: () => (blockReply(), Promise.resolve({ ok: 1 })),
  });
  assert.deepEqual(once, { answered: 0, failed: 0 });
  assert.ok(readdirSync(d.path).includes(Q1), "back in the queue");
  assert.deepEqual(readdirSync(join(d.path, "working")), []);
  assert.match(notes[0]!, /^cannot write the answer to \w+: .*; put it back in the queue$/);
  // a worker that goes on: no spinning on the full disk, and it answers once there is room
  Deno.removeSync(join(d.path, "reply"));
  Deno.mkdirSync(join(d.path, "reply"));
  let calls = 0;
  const ac = new AbortController();
  const run = runQueue({
    dir: d.path,
    out: "reply",
    intervalMs: 20,
    signal: ac.signal,
    answer: () => {
      if (++calls <= 3) {
        blockReply();
        setTimeout(
          () => (Deno.removeSync(join(d.path, "reply")), Deno.mkdirSync(join(d.path, "reply"))),
          5,
        );
      } else ac.abort();
      return Promise.resolve({ ok: calls });
    },
  });
  const t0 = Date.now();
  const guard = setTimeout(() => ac.abort(), 20_000);
  await run;
  clearTimeout(guard);
  assert.equal(calls, 4);
  assert.ok(Date.now() - t0 >= 20 + 40 + 80 - 10, "backed off between the tries");
});
