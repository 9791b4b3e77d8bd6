/**
 * A thread of the test process removing trees by {@link inRealDir} over and
 * over (`tests/util/pinned_dir_cwd_test.ts`, R145-4), as a test file running
 * next to others under `deno test --parallel` does: it gets `{ base, rounds }`
 * and posts back `{ errors, cwds }` — what failed, and the working
 * directories seen while inside that were not the one it started in.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isMainThread, parentPort } from "node:worker_threads";
import { inRealDir, removeHere } from "../../src/util/pinned_dir.ts";

/** Makes and removes `rounds` trees under `base`; returns what went wrong. */
export function churn(base: string, rounds: number): { errors: string[]; cwds: string[] } {
  const start = process.cwd();
  const errors: string[] = [];
  const cwds = new Set<string>();
  for (let i = 0; i < rounds; i++) {
    const dir = join(base, `d${i}`);
    mkdirSync(join(dir, "job.files", "sub"), { recursive: true });
    writeFileSync(join(dir, "job.files", "sub", "x"), "x");
    try {
      inRealDir(dir, (here) => {
        if (process.cwd() !== start) cwds.add(process.cwd());
        removeHere("job.files", here);
        if (process.cwd() !== start) cwds.add(process.cwd());
      });
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  return { errors, cwds: [...cwds] };
}

if (!isMainThread) {
  parentPort!.on("message", (m: { base: string; rounds: number }) => {
    parentPort!.postMessage(churn(m.base, m.rounds));
  });
}
