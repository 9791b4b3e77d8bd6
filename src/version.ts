/**
 * The package version, read from `deno.json` at build time (embedded in the binary).
 *
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };

/** scout-ai's version string, e.g. `0.1.0`. */
export const VERSION: string = denoJson.version;
