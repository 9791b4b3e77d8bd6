/**
 * vLLM adapter (`vllm`; `inference.md` §3.5): the Responses adapter with
 * `VLLM_*` settings, plus tool-name cleanup of harmony channel markers
 * (`get_weather<|channel|>commentary` → `get_weather`). Threading with
 * `previous_response_id` as in the Ruby; servers that store no responses set
 * `previous_response: false` in their endpoint file.
 *
 * @module
 */
import type { Backend } from "../types.ts";
import { queryResponses } from "./responses.ts";

const CHANNEL = /[^a-zA-Z_]+channel[^a-zA-Z_]+[a-zA-Z_]+/;

/**
 * Removes the first channel marker from a tool name.
 *
 * @param name tool name as sent by the model
 * @returns the cleaned name
 *
 * @example
 * ```ts
 * import { cleanToolName } from "./vllm.ts";
 * cleanToolName("get_weather<|channel|>commentary"); // "get_weather"
 * ```
 */
export function cleanToolName(name: string): string {
  return name.replace(CHANNEL, "");
}

/** The `vllm` backend. */
export const vllmBackend: Backend = {
  defaults: {
    tag: "vllm",
    model: "vllm",
    urlEnv: "VLLM_URL",
    keyEnv: ["VLLM_KEY"],
    modelEnv: ["VLLM_MODEL", "MODEL"],
  },
  threading: true,
  query: (req, ctx) => queryResponses(req, ctx, { backend: "vllm", toolName: cleanToolName }),
};
