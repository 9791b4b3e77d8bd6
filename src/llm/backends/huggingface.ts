/**
 * Hugging Face adapter (`huggingface`; issue 15 item 2). Ruby runs a local
 * `transformers` model through Python, which a single binary cannot carry;
 * this backend talks to what Hugging Face users run as servers instead, both
 * through the OpenAI-compatible Chat Completions API (`{url}/v1/chat/completions`):
 *
 * - Hugging Face's inference router (the default url,
 *   `https://router.huggingface.co/v1`), with a token from `HF_TOKEN` or
 *   `HUGGINGFACE_KEY` (required there);
 * - Text Generation Inference (`url: http://host:8080`): its Messages API
 *   applies the model's chat template server-side and gives tool calls,
 *   streaming and usage. TGI's native `/generate` takes a raw prompt string,
 *   so a client would have to render each model's chat template itself and
 *   would lose tool calls — it is not used.
 *
 * @module
 */
import type { Backend } from "../types.ts";
import { queryChat } from "./openai.ts";
import { openaiBaseUrl } from "./openai_sdk.ts";

/** The router's base url (the default when no `url` is configured). */
export const HF_ROUTER_URL = "https://router.huggingface.co/v1";

/** The `huggingface` backend. */
export const huggingfaceBackend: Backend = {
  defaults: {
    tag: "huggingface",
    model: "tgi",
    urlEnv: "HUGGINGFACE_URL",
    keyEnv: ["HF_TOKEN", "HUGGINGFACE_KEY"],
    modelEnv: ["HUGGINGFACE_MODEL", "MODEL"],
    url: HF_ROUTER_URL,
    keyRequired: true,
  },
  query: (req, ctx) =>
    queryChat(req, ctx, {
      backend: "huggingface",
      baseURL: openaiBaseUrl(ctx.settings.url ?? HF_ROUTER_URL, ctx.settings.apiVersion),
    }),
};
