/**
 * What the concurrent `--recompute` tests share: a `workflow task Grader
 * grade --n 3` started from source in a temp home, and a running child's
 * output read as it comes.
 *
 * @module
 */
import { DENO, SCOUT_SOURCE_ARGS } from "../support/cli.ts";
import { env } from "./cli_support.ts";

/** Starts `workflow task Grader grade --n 3 …more` in `dir` (its home), output piped. */
export function grade(dir: string, ...more: string[]): Deno.ChildProcess {
  return new Deno.Command(DENO, {
    args: [...SCOUT_SOURCE_ARGS, "workflow", "task", "Grader", "grade", "--n", "3", ...more],
    cwd: dir,
    env: env(dir),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** A running child's stdout and stderr, read as they come, and its exit code once ended. */
export function watch(child: Deno.ChildProcess) {
  const seen = { stdout: "", stderr: "" };
  const read = async (name: "stdout" | "stderr") => {
    for await (const t of child[name].pipeThrough(new TextDecoderStream())) seen[name] += t;
  };
  const done = Promise.all([read("stdout"), read("stderr"), child.status]);
  return { seen, ended: async () => (await done)[2].code };
}
