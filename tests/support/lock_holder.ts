/**
 * A process that holds a job's persist lock until it is disposed of (killed
 * with SIGKILL, as a run that dies): for the tests of what a lock another
 * process holds keeps.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DENO, ROOT } from "./cli.ts";

/** A lock holder in another process. */
export interface LockHolder extends AsyncDisposable {
  /** The process. */
  child: Deno.ChildProcess;
  /** Kills it (SIGKILL) and waits for it; a second call does nothing. */
  kill(): Promise<void>;
}

/**
 * Starts a process that takes the persist lock of `job` (as spelled) in
 * `lockDir` and holds it; resolves once it is held.
 *
 * @param job the job's result path, spelled as the holder spells it
 * @param lockDir the persist-lock directory
 * @returns the holder
 */
export async function lockHolder(job: string, lockDir: string): Promise<LockHolder> {
  const code = `
    import { acquireLock } from ${JSON.stringify(join(ROOT, "src/workflow/lock.ts"))};
    await acquireLock(${JSON.stringify(job)}, ${JSON.stringify(lockDir)});
    console.log("held");
    setInterval(() => {}, 1000);`;
  const child = new Deno.Command(DENO, { args: ["eval", "-q", code], stdout: "piped" }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let killed = false;
  const kill = async () => {
    if (killed) return;
    killed = true;
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
  };
  const first = await reader.read();
  if (first.value?.trim() !== "held") await kill();
  assert.equal(first.value?.trim(), "held");
  return { child, kill, [Symbol.asyncDispose]: kill };
}
