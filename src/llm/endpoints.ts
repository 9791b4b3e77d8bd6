/**
 * `endpoints()`: what endpoint files are visible and what each resolves to —
 * backend, model, url and whether a key is configured (never the key itself,
 * nor the credentials of the url).
 *
 * @module
 */
import { dirname } from "node:path";
import type { EndpointLookupOptions } from "../config/endpoints.ts";
import { listEndpointFiles, loadEndpoint } from "../config/endpoints.ts";
import { isScoutError } from "../errors.ts";
import { redactUrl } from "../util/secrets.ts";

/** One endpoint as listed. */
export interface EndpointSummary {
  /** Endpoint name. */
  name: string;
  /** File it is read from. */
  file: string;
  /** `backend:` (or `provider:`) of the file, if set. */
  backend?: string;
  /** `model:` of the file, if set. */
  model?: string;
  /** `url:` of the file, if set, its password and secret parameters masked (`redactUrl`). */
  url?: string;
  /** Whether the file sets a `key` (the value is never returned). */
  hasKey: boolean;
  /** Why the file could not be read, if it could not. */
  error?: string;
}

/**
 * Lists the endpoints visible from `opts` (`./etc/AI`, `$SCOUT_HOME/etc/AI`,
 * system directories; first hit per name wins).
 *
 * @param opts cwd/env or explicit directories
 * @returns summaries sorted by name
 *
 * @example
 * ```ts
 * import { endpoints } from "./endpoints.ts";
 * for (const e of await endpoints()) console.log(e.name, e.backend ?? "responses", e.model ?? "");
 * ```
 */
export async function endpoints(opts: EndpointLookupOptions = {}): Promise<EndpointSummary[]> {
  return await Promise.all(
    listEndpointFiles(opts).map(async ({ name, file }) => {
      try {
        const { settings } = await loadEndpoint(name, { ...opts, dirs: [dirname(file)] });
        const s: EndpointSummary = {
          name,
          file,
          hasKey: settings.key !== undefined && settings.key !== null,
        };
        if (settings.backend !== undefined) s.backend = String(settings.backend);
        if (settings.model !== undefined) s.model = String(settings.model);
        if (settings.url !== undefined) s.url = redactUrl(String(settings.url));
        return s;
      } catch (e) {
        if (!isScoutError(e)) throw e;
        return { name, file, hasKey: false, error: e.message };
      }
    }),
  );
}
