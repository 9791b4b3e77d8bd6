/**
 * A bench that measures in child processes of itself, under Deno and under
 * Bun (the shipped binary's runtime): each child is the bench's own module
 * run with `--child …`, and prints its figures as one JSON line, its last.
 *
 * @module
 */

/** One runtime the bench's children run under. */
export interface SelfRuntime {
  /** `Deno` or `Bun`. */
  name: string;
  /**
   * Runs the module as a child with `--child` and `args`; its stderr passes
   * through.
   *
   * @returns the parsed last line of its stdout
   * @throws Error naming the runtime and `args` when the child fails
   */
  child(args: string[]): Promise<unknown>;
}

/**
 * The runtimes for a bench module: Deno with the project's config (its import
 * map), and the project's pinned Bun (`tools/setup`).
 *
 * @param moduleUrl the bench's `import.meta.url`
 * @returns Deno's, then Bun's
 */
export function selfRuntimes(moduleUrl: string): SelfRuntime[] {
  const self = new URL(moduleUrl).pathname;
  const config = new URL("../deno.json", import.meta.url).pathname;
  const bun = new URL("../tools/node_modules/.bin/bun", import.meta.url).pathname;
  const runtime = (name: string, cmd: string, pre: string[]): SelfRuntime => ({
    name,
    async child(args) {
      const out = await new Deno.Command(cmd, {
        args: [...pre, self, "--child", ...args],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (out.code !== 0) throw new Error(`${name} ${args.join(" ")}: exit ${out.code}`);
      return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
    },
  });
  return [
    runtime("Deno", Deno.execPath(), ["run", "-q", "-A", `--config=${config}`]),
    runtime("Bun", bun, []),
  ];
}
