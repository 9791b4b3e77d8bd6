/**
 * A bench that measures in child processes of itself, under Deno and under
 * Bun (the shipped binary's runtime): each child is the bench's own module
 * run with `--child …`, and prints its figures as one JSON line, its last.
 *
 * @module
 */
import { benchRuntimes } from "./runtimes.ts";

/** One runtime the bench's children run under. */
export interface SelfRuntime {
  /** The runtime and its version, e.g. `Bun 1.4.5`. */
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
 * The runtimes for a bench module ({@link benchRuntimes}: Deno with the
 * project's config, the project's pinned Bun when installed).
 *
 * @param moduleUrl the bench's `import.meta.url`
 * @returns Deno's, then Bun's
 */
export function selfRuntimes(moduleUrl: string): SelfRuntime[] {
  const self = new URL(moduleUrl).pathname;
  return benchRuntimes().map(({ name, command }) => ({
    name,
    async child(args) {
      const [cmd, ...rest] = command(self, ["--child", ...args]);
      const out = await new Deno.Command(cmd!, {
        args: rest,
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (out.code !== 0) throw new Error(`${name} ${args.join(" ")}: exit ${out.code}`);
      return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
    },
  }));
}
