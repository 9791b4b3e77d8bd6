/**
 * `util/pinned_dir.ts` where `/proc/self/fd` cannot be used: run by Deno with
 * `-R -W` only (Deno keeps `/proc` for `--allow-all`), so the working
 * directory stands for the directory (`tests/util/pinned_dir_cwd_test.ts`).
 * Removes `DIR/job.files` after swapping DIR for a link to VICTIM, once
 * entered; prints `{"proc": …, "inside": …, "after": …}`: whether `/proc`
 * was readable, the working directory inside and after.
 *
 * `tools/deno run -R -W tests/support/pinned_dir_fallback.ts DIR VICTIM`
 *
 * @module
 */
import { existsSync, renameSync, symlinkSync } from "node:fs";
import { inRealDir, removeHere } from "../../src/util/pinned_dir.ts";

const [dir, victim] = Deno.args as [string, string];
let proc = true;
try {
  existsSync("/proc/self/fd/0");
  Deno.readLinkSync("/proc/self/fd/0");
} catch {
  proc = false;
}
const inside = inRealDir(dir, (here) => {
  renameSync(dir, dir + ".aside"); // B, after the check: the path now leads to A's files
  symlinkSync(victim, dir);
  removeHere("job.files", here);
  return process.cwd();
});
console.log(JSON.stringify({ proc, inside, after: process.cwd() }));
