/**
 * OpenWebUI adapter (`openwebui`; `inference.md` §3.5): Chat Completions at
 * `{url}/chat/completions` with a bearer key, through the `openai` SDK. Calls
 * without ids get `<name>_<md5 of the arguments' digest string>`, `_<index>`
 * added when two calls of a reply would share one (as Ollama's). No blind
 * retries and TLS verification stays on ([TS-FIX]).
 *
 * @module
 */
import { ScoutError } from "../../errors.ts";
import { md5hex } from "../../util/hash.ts";
import type { Backend } from "../types.ts";
import { argumentDigest } from "./ollama.ts";
import { queryChat } from "./openai.ts";

/** The `openwebui` backend. */
export const openwebuiBackend: Backend = {
  defaults: {
    tag: "openwebui",
    model: "llama3.1",
    urlEnv: "OPENWEBUI_URL",
    keyEnv: ["OPENWEBUI_KEY"],
    modelEnv: ["OPENWEBUI_MODEL", "MODEL"],
  },
  query: (req, ctx) => {
    // Without a url the SDK would fall back to api.openai.com: OpenWebUI has no default host.
    if (!ctx.settings.url) {
      throw new ScoutError(
        "config",
        'No url for backend "openwebui": set OPENWEBUI_URL, or "url" in the endpoint file or config',
        { backend: "openwebui" },
      );
    }
    return queryChat(req, ctx, {
      backend: "openwebui",
      baseURL: ctx.settings.url.replace(/\/+$/, ""),
      missingId: (name, args) => `${name}_${md5hex(argumentDigest(args))}`,
    });
  },
};
