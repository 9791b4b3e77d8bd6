/**
 * A user's module (`workflow.ts`, `agent.ts`) importing a package the runtime
 * cannot find (R126-1). Bun — the binary — throws a `ResolveMessage` with the
 * `specifier` and the importing module (`referrer`) but no position ("Cannot
 * find package 'yaml' imported from …"); here the import's line is read from
 * the importing module's source, and the message says what to do:
 *
 * - `npm:` and `jsr:` specifiers: Bun loads neither (Deno does, from source);
 * - the library's own package (`@scout-ai/scout-ai`): the binary holds the
 *   library but no package of that name to import — the default export gets
 *   the API, and types come with `import type`, which no runtime loads;
 * - any other package: none of the `node_modules` from the module's
 *   directory up has it (the binary resolves them as `bun` does).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { staticImports } from "./static_imports.ts";

/** Where an unresolvable package import is, and what the message says. */
export interface PackageImportFailure {
  /** The message: which package, and what to do. */
  text: string;
  /** The module that imports it. */
  file: string;
  /** 1-based line of the import in `file`, when found. */
  line?: number;
}

const LIBRARY = "@scout-ai/scout-ai";

/** The package an `npm:`/`jsr:` specifier names, without version or subpath. */
function packageName(specifier: string): string {
  const bare = specifier.replace(/^(?:npm|jsr):\/?/, "");
  const parts = bare.split("/");
  const name = bare.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  return name.replace(/(?<=.)@.*$/, "");
}

function advice(specifier: string): string {
  if (/^(?:npm|jsr):/.test(specifier)) {
    const name = packageName(specifier);
    return `the binary (Bun) loads no npm: or jsr: specifier: install the package beside the file ` +
      `(npm install ${name}) and import "${name}", or run from source with deno`;
  }
  if (specifier === LIBRARY || specifier.startsWith(`${LIBRARY}/`)) {
    return `the binary has no package "${LIBRARY}" to import: use the API your default export ` +
      `receives, and import its types with \`import type\``;
  }
  return `no node_modules from the file's directory up has it: install it there (npm install ${
    packageName(specifier)
  })`;
}

function lineIn(file: string, specifier: string): number | undefined {
  try {
    return staticImports(readFileSync(file, "utf8")).find((i) => i.specifier === specifier)?.line;
  } catch {
    return undefined; // unreadable now: the message names the file alone
  }
}

/**
 * Reads a package import the runtime could not resolve from what it threw.
 *
 * @param e what importing a user's module threw
 * @returns the message, the importing module and the import's line; null
 *   when `e` is no such error (a Bun `ResolveMessage` for a package)
 * @example
 * ```ts ignore
 * import { packageImportFailure } from "./package_import.ts";
 * const e = { code: "ERR_MODULE_NOT_FOUND", specifier: "npm:yaml@2", referrer: "/w/workflow.ts" };
 * packageImportFailure(e); // { text: 'Cannot find package "npm:yaml@2": the binary (Bun) …', file: "/w/workflow.ts", line: 1 }
 * ```
 */
export function packageImportFailure(e: unknown): PackageImportFailure | null {
  if (typeof e !== "object" || e === null) return null;
  const { code, specifier, referrer } = e as Record<string, unknown>;
  if (
    code !== "ERR_MODULE_NOT_FOUND" || typeof specifier !== "string" ||
    typeof referrer !== "string" || referrer === "" || /^(?:\.{0,2}\/|file:)/.test(specifier)
  ) return null;
  const text = `Cannot find package "${specifier}": ${advice(specifier)}`;
  const line = lineIn(referrer, specifier);
  return line === undefined ? { text, file: referrer } : { text, file: referrer, line };
}
