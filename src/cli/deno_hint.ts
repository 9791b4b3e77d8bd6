/**
 * The binary runs a user's `workflow.ts` and `agent.ts` under Bun, which has
 * no `Deno` global: code that works from source (`deno task scout`) fails
 * there with "Deno is not defined" (R126-2). The CLI's error line then says
 * what to use instead.
 *
 * @module
 */

/** How deep the causes are looked at (as the `--debug` trace goes). */
const MAX_CAUSES = 8;

const UNDEFINED_DENO = /\bDeno is not defined\b/;

/**
 * The hint added to a failure's line when the code it ran used `Deno` where
 * there is none: what was thrown, or a cause of it, says "Deno is not
 * defined" (a job run in a worker keeps its error's message only).
 *
 * @param e what the command failed with
 * @returns the hint, starting with a separator, or "" (always under Deno)
 * @example
 * ```ts ignore
 * import { denoHint } from "./deno_hint.ts";
 * denoHint(new ReferenceError("Deno is not defined")); // under Bun: " — the binary runs …"
 * ```
 */
export function denoHint(e: unknown): string {
  if ("Deno" in globalThis) return "";
  let c = e;
  for (let depth = 0; c !== null && typeof c === "object" && depth < MAX_CAUSES; depth++) {
    const message = (c as { message?: unknown }).message;
    if (typeof message === "string" && UNDEFINED_DENO.test(message)) {
      return " — the binary runs workflow and agent code under Bun: use node: modules " +
        "(node:fs, node:process…) and web APIs, not Deno.*";
    }
    c = (c as { cause?: unknown }).cause;
  }
  return "";
}
