/**
 * The environment variables that route an ask (`inference.md` §1.2, §1.5,
 * §6): which endpoint, which backend, whether results are cached. Named in
 * one place so the readers (`config/endpoints.ts`, `llm/settings.ts`,
 * `llm/ask_backend.ts`) and a SLURM batch job's script, which carries them to
 * the compute node (`workflow/deploy/slurm_env.ts`), agree on the set. None
 * names a credential.
 *
 * @module
 */

/** Environment variables naming the endpoint, in priority order (§1.2). */
export const ENDPOINT_ENV_VARS: readonly string[] = [
  "ASK_ENDPOINT",
  "LLM_ENDPOINT",
  "ENDPOINT",
  "LLM",
  "ASK",
];

/** Environment variables naming the backend, in priority order (§1.5). */
export const BACKEND_ENV_VARS: readonly string[] = ["ASK_BACKEND", "LLM_BACKEND"];

/** Environment variables turning the ask cache off, in priority order (§6). */
export const PERSIST_ENV_VARS: readonly string[] = ["ASK_PERSIST", "LLM_PERSIST", "PERSIST"];

/**
 * Every routing variable: the endpoint's, the backend's and the cache's.
 *
 * @example
 * ```ts
 * import { ROUTING_ENV_VARS } from "./routing_env.ts";
 * ROUTING_ENV_VARS.includes("ASK_ENDPOINT"); // true
 * ```
 */
export const ROUTING_ENV_VARS: readonly string[] = [
  ...ENDPOINT_ENV_VARS,
  ...BACKEND_ENV_VARS,
  ...PERSIST_ENV_VARS,
];
