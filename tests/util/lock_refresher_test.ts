/**
 * The lock refresher (`src/util/lock_refresher.ts`) and a held lock that
 * another member of a shared store swapped for a FIFO (R125): the refresher
 * reads the lock to see that it is still ours, and a blocking read of a FIFO
 * no one writes never returns. Each case runs in a child process killed by
 * SIGKILL after a limit: a regression fails (exit 137), never hangs the suite.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO, ROOT, tempDir } from "../support/cli.ts";

const REFRESHER = join(ROOT, "src", "util", "lock_refresher.ts");

/** Runs `code` as a Deno script in `dir` (its first argument), killed after 20 s. */
async function child(dir: string, code: string): Promise<{ code: number; out: string }> {
  const script = join(dir, "child.ts");
  Deno.writeTextFileSync(script, code);
  const r = await new Deno.Command("timeout", {
    args: ["-s", "KILL", "20", DENO, "run", "-A", "--no-lock", "--no-check", script, dir],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
}

const WORKER_CHILD = `
import { execFileSync } from "node:child_process";
import { statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { keepFresh } from ${JSON.stringify(REFRESHER)};
const dir = Deno.args[0];
const [fifo, other] = [dir + "/a.lock", dir + "/b.lock"];
writeFileSync(fifo, "ours");
writeFileSync(other, "ours");
keepFresh(fifo, "ours", 10);
keepFresh(other, "ours", 50);
const old = new Date(Date.now() - 3_600_000);
const isOld = (p) => statSync(p).mtimeMs < Date.now() - 60_000;
// the co-user's swap: the held lock is now a FIFO no one writes
unlinkSync(fifo);
execFileSync("mkfifo", [fifo]);
utimesSync(fifo, old, old);
// the other lock refreshed twice: the FIFO's turn (every 10 ms) came in between
for (let i = 0; i < 2; i++) {
  utimesSync(other, old, old);
  while (isOld(other)) await new Promise((r) => setTimeout(r, 5));
}
console.log(isOld(fifo) ? "fifo untouched" : "fifo touched");
`;

Deno.test("lock refresher: a held lock swapped for a FIFO is not read, not touched, and the thread goes on refreshing the others (R125)", async () => {
  await using d = await tempDir();
  const r = await child(d.path, WORKER_CHILD);
  // before: the refresher thread blocked reading the FIFO; the other lock was never refreshed again
  assert.equal(r.code, 0, r.out);
  assert.equal(r.out, "fifo untouched\n");
});

const MAIN_CHILD = `
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { touchIfOurs } from ${JSON.stringify(REFRESHER)};
const dir = Deno.args[0];
writeFileSync(dir + "/ours.lock", "ours");
execFileSync("mkfifo", [dir + "/fifo.lock"]);
console.log(touchIfOurs(dir + "/ours.lock", "ours"), touchIfOurs(dir + "/fifo.lock", "ours"));
`;

Deno.test("lock refresher: the main-thread fallback judges a FIFO in its lock's place not ours, without reading it (R125)", async () => {
  await using d = await tempDir();
  const r = await child(d.path, MAIN_CHILD);
  // before: the read of the FIFO blocked the whole process
  assert.equal(r.code, 0, r.out);
  assert.equal(r.out, "true false\n");
});
