/**
 * A queue worker trusts no client (`src/llm/queue_read.ts`, R167-6): a FIFO
 * named as a request does not hang a real worker process, a link is not
 * followed out of the queue (the client learns nothing of its target), and an
 * unparsable request's error does not quote it.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runQueue } from "../../src/llm/queue.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";
import { md5hex } from "../../src/util/hash.ts";

const [FIFO, LINK, BAD] = ["fifo", "link", "bad"].map(md5hex) as [string, string, string];
const GOOD = "f".repeat(32); // last in name order: answered after the others

Deno.test("a FIFO or a link named as a request fails without hanging or reading out of the queue (R167-6)", async () => {
  await using d = await tempDir();
  const secret = join(d.path, "endpoint.yaml");
  writeFileSync(secret, "backend: openai\nkey: SECRET-8841\n");
  const queue = join(d.path, "q");
  Deno.mkdirSync(queue);
  new Deno.Command("mkfifo", { args: [join(queue, `${FIFO}.json`)] }).outputSync();
  symlinkSync(secret, join(queue, `${LINK}.json`));
  writeFileSync(join(queue, `${GOOD}.json`), JSON.stringify({ question: "x" }));
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", join(ROOT, "tests/support/queue_worker.ts"), queue, "0"],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reply = (id: string) => join(queue, "reply", `${id}.json`);
  const until = Date.now() + 20_000;
  while (!existsSync(reply(GOOD)) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  await child.output();
  assert.ok(existsSync(reply(GOOD)), "the worker went on to the next request");
  assert.deepEqual(JSON.parse(readFileSync(reply(FIFO), "utf8")), {
    error: "The request is not a regular file",
  });
  const linked = readFileSync(reply(LINK), "utf8");
  assert.deepEqual(JSON.parse(linked), {
    error: "The request is a symbolic link, not a regular file",
  });
  assert.equal(readFileSync(secret, "utf8"), "backend: openai\nkey: SECRET-8841\n");
});

Deno.test("an unparsable request's error does not quote the file (R167-6)", async () => {
  await using d = await tempDir();
  writeFileSync(join(d.path, `${BAD}.json`), "backend: openai");
  const settled = new Date(Date.now() - 10_000); // not being written any more (R167-5)
  utimesSync(join(d.path, `${BAD}.json`), settled, settled);
  const stats = await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    answer: () => Promise.resolve({}),
  });
  assert.deepEqual(stats, { answered: 0, failed: 1 });
  const text = readFileSync(join(d.path, "reply", `${BAD}.json`), "utf8");
  assert.ok(!text.includes("backend"), text);
  assert.equal(JSON.parse(text).error, "The request is not valid JSON after 5 s");
});

Deno.test("a request still being written is left for a later pass, then answered whole (R167-5)", async () => {
  await using d = await tempDir();
  const file = join(d.path, `${BAD}.json`);
  writeFileSync(file, '{"question": "first half'); // written in place, in two parts
  const once = await runQueue({
    dir: d.path,
    out: "reply",
    once: true,
    answer: () => Promise.resolve({}),
  });
  assert.deepEqual(once, { answered: 0, failed: 0 });
  assert.ok(readdirSync(d.path).includes(`${BAD}.json`), "left queued");
  const ac = new AbortController();
  const asked: unknown[] = [];
  setTimeout(() => appendFileSync(file, ' and the second"}'), 300);
  const guard = setTimeout(() => ac.abort(), 20_000);
  await runQueue({
    dir: d.path,
    out: "reply",
    intervalMs: 50,
    signal: ac.signal,
    answer: (req) => (asked.push(req), ac.abort(), Promise.resolve({ ok: 1 })),
  });
  clearTimeout(guard);
  assert.deepEqual(asked, [{ question: "first half and the second" }]);
  assert.ok(!existsSync(join(d.path, "failed", `${BAD}.json`)));
});
