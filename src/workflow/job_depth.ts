/**
 * How deep a job's dependencies nest while it is built (R89-4): a chain of
 * dependencies is built recursively, and one a thousand levels deep ran the
 * stack out with a bare "Maximum call stack size exceeded"; the build now
 * fails naming the depth it reached.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";

/** Dependency depth of the job being built now, and the deepest reached, with its task. */
export interface BuildDepth {
  now: number;
  deepest: number;
  where: string;
}

/** Runs `build` (a job's dependencies) one dependency level deeper, counting the deepest. */
export function depthCounted<T>(d: BuildDepth, where: string, build: () => T): T {
  d.now++;
  if (d.now > d.deepest) {
    d.deepest = d.now;
    d.where = where;
  }
  try {
    return build();
  } finally {
    d.now--;
  }
}

/**
 * The error of a build whose dependencies nested deeper than the stack holds
 * (R89-4: a chain of 1,000 dependencies exhausted it), naming the depth, or
 * undefined for any other error.
 */
export function tooDeep(e: unknown, where: string, depth: BuildDepth): ScoutError | undefined {
  if (!(e instanceof RangeError) || !/call stack/i.test(e.message)) return undefined;
  return new ScoutError(
    "parameter",
    `Dependencies of ${where} nest too deep to build: the stack ran out at dependency depth ` +
      `${depth.deepest} (${depth.where}); a chain this long cannot be built in one job`,
    { cause: e },
  );
}
