/**
 * Claims of the queue worker (`src/llm/queue.ts`, `queue_claim.ts`) with real
 * worker processes (`tests/support/queue_worker.ts`): a SIGKILLed worker's
 * request is put back when a worker starts (R167-1); a request whose id a
 * live worker holds stays queued, never claimed twice (R167-4).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runQueue } from "../../src/llm/queue.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { md5hex } from "../../src/util/hash.ts";

const A = md5hex("please go slow");

/** Starts a worker on `dir` answering after `slowMs`; resolves once it has claimed a request. */
async function startWorker(dir: string, slowMs: number) {
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", join(ROOT, "tests/support/queue_worker.ts"), dir, String(slowMs)],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  let seen = "";
  const dec = new TextDecoder();
  while (!seen.includes("claimed ")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`worker ended: ${seen}`);
    seen += dec.decode(value, { stream: true });
  }
  const rest = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      seen += dec.decode(r.value, { stream: true });
    }
    return seen;
  })();
  return { child, out: rest, err: child.stderr.text() };
}

const answerOk = () => Promise.resolve({ answer: "ok" });

Deno.test("a SIGKILLed worker's request is put back and answered by the next worker (R167-1)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, `${A}.json`), JSON.stringify({ question: "x" }));
  const w = await startWorker(d.path, 60_000);
  w.child.kill("SIGKILL");
  await w.child.status;
  await w.out, await w.err;
  assert.ok(existsSync(join(d.path, "working", `${A}.json`)));
  const notes: string[] = [];
  const stats = await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    answer: answerOk,
    notice: (l) => notes.push(l),
  });
  assert.deepEqual(stats, { answered: 1, failed: 0 });
  assert.equal(readFileSync(join(d.path, "reply", `${A}.json`), "utf8"), '{"answer":"ok"}');
  assert.ok(!existsSync(join(d.path, "working", `${A}.json`)));
  assert.ok(!existsSync(join(d.path, "working", `${A}.holder`)));
  assert.deepEqual(notes, [`put ${A} back in the queue: its worker is gone`]);
});

Deno.test("another host's claim is put back only once stale: fresh kept, a day old taken (R167-1)", async () => {
  await using d = await tempDir();
  const work = join(d.path, "working");
  Deno.mkdirSync(work);
  writeFileSync(join(work, `${A}.json`), JSON.stringify({ question: "x" }));
  writeFileSync(join(work, `${A}.holder`), "4242@some-other-host");
  const run = () => runQueue({ dir: d.path, out: "reply", once: true, answer: answerOk });
  assert.deepEqual(await run(), { answered: 0, failed: 0 });
  assert.ok(existsSync(join(work, `${A}.json`)), "a live holder's claim is left");
  const dayAgo = new Date(Date.now() - 86_400_000);
  utimesSync(join(work, `${A}.holder`), dayAgo, dayAgo);
  assert.deepEqual(await run(), { answered: 1, failed: 0 });
  assert.ok(!existsSync(join(work, `${A}.json`)) && !existsSync(join(work, `${A}.holder`)));
});

Deno.test("a request re-queued under an id a live worker holds stays queued, claimed once (R167-4)", async () => {
  await using d = await tempDir();
  const request = JSON.stringify({ question: "x" });
  writeFileSync(join(d.path, `${A}.json`), request);
  const w = await startWorker(d.path, 1500);
  writeFileSync(join(d.path, `${A}.json`), request); // the client asks again
  let calls = 0;
  const second = await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    answer: () => (calls++, answerOk()),
  });
  assert.deepEqual(second, { answered: 0, failed: 0 });
  assert.equal(calls, 0);
  assert.ok(existsSync(join(d.path, `${A}.json`)), "left queued");
  // the holder answers; its next pass drops the queued copy as answered
  const reply = join(d.path, "reply", `${A}.json`);
  for (let i = 0; i < 200 && existsSync(join(d.path, `${A}.json`)); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  w.child.kill("SIGTERM");
  assert.equal((await w.child.status).code, 0, await w.err);
  const out = await w.out;
  assert.equal(out.split("claimed ").length - 1, 1, out);
  assert.equal(JSON.parse(readFileSync(reply, "utf8")).answer, A);
  assert.ok(!existsSync(join(d.path, `${A}.json`)));
});
