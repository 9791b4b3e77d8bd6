/**
 * `pidAlive` (`src/util/process.ts`): a live pid, a dead one, and the ids
 * that name no single process — 0 (this process group), negatives (a group,
 * or every process), non-integers.
 */
import assert from "node:assert/strict";
import { pidAlive } from "../../src/util/process.ts";

Deno.test("pidAlive: this process is alive, an ended child is not", async () => {
  assert.equal(pidAlive(Deno.pid), true);
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""] }).spawn();
  await child.status;
  assert.equal(pidAlive(child.pid), false);
});

Deno.test("pidAlive: 0, negative and non-integer ids name no process", () => {
  // kill(0, 0) signals this process's group and kill(-1, 0) every process: both succeed
  for (const pid of [0, -1, -Deno.pid, 1.5, NaN]) {
    assert.equal(pidAlive(pid), false, `pid ${pid}`);
  }
});
