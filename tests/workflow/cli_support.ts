/**
 * What the workflow CLI tests share: the bundled Baking workflow, the
 * environment of a run in a temp home, a user workflow written to disk, a
 * job's info, a signal sent to a real `workflow task` while its job runs,
 * and a countdown task (a dependency chain).
 *
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, spawnScout } from "../support/cli.ts";
import { input } from "../../src/workflow/define.ts";

/** The bundled Baking workflow. */
export const BAKING = join(ROOT, "fixtures", "workflows", "Baking");
/** The environment of a run in temp home `home`, without color. */
export const env = (home: string) => ({ SCOUT_HOME: home, HOME: home, NO_COLOR: "1" });

/** Writes `<dir>/workflows/<name>/workflow.ts` with `body`; returns its directory. */
export function userWorkflow(dir: string, name: string, body: string): string {
  const d = join(dir, "workflows", name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, "workflow.ts"), body);
  return d;
}

/** The `.info` of the job at `path`, or null while it has none (or one half written). */
export function readInfo(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path + ".info", "utf8"));
  } catch {
    return null;
  }
}

/** What {@link signalDuringJob} saw. */
export interface Signalled {
  /** The command's exit code. */
  code: number;
  stdout: string;
  stderr: string;
  /** The command's process id. */
  pid: number;
  /** The job's info when it had started. */
  started: Record<string, unknown>;
}

/**
 * Starts `scout-ai workflow task …args` from source as a real process in
 * `dir` (its home) and waits until the job at `path` has started and 300 ms
 * more: the moment a signal tests the job's handling.
 */
export async function startedJob(
  dir: string,
  args: string[],
  path: string,
): Promise<{ child: Deno.ChildProcess; started: Record<string, unknown> }> {
  const child = spawnScout(["workflow", "task", ...args], { cwd: dir, env: env(dir) });
  const t0 = Date.now();
  let started = readInfo(path);
  while (started?.status !== "start") {
    if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for job ${path} to start`);
    await new Promise((r) => setTimeout(r, 20));
    started = readInfo(path);
  }
  await new Promise((r) => setTimeout(r, 300));
  return { child, started };
}

/**
 * Runs `scout-ai workflow task …args` ({@link startedJob}), sends the
 * command `signal` once its job has started and waits for it to end.
 */
export async function signalDuringJob(
  dir: string,
  args: string[],
  path: string,
  signal: Deno.Signal,
): Promise<Signalled> {
  const { child, started } = await startedJob(dir, args, path);
  child.kill(signal);
  const out = await child.output();
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    pid: child.pid,
    started,
  };
}

/**
 * A task that depends on itself with its `depth` one less, down to 0: a
 * dependency chain `depth` deep, and no cycle (each level has other inputs).
 */
export const countdownTask = {
  type: "integer" as const,
  inputs: { depth: input.integer({ default: 0 }) },
  deps: [{
    task: "chain",
    resolve: (_id: unknown, o: Record<string, unknown>) =>
      Number(o.depth) > 0 ? [{ depth: Number(o.depth) - 1 }] : [],
  }],
  run: () => 0,
};
