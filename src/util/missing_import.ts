/**
 * A user's module (`workflow.ts`, `agent.ts`) that imports a local file that
 * is not there, found before importing it: Deno loads a module's whole graph
 * first and fails on it, but Bun — the binary — drops an import the module
 * never uses when it transpiles, so the same file loaded silently there and
 * failed from source; a used one failed with a message naming no line. Both
 * now fail here, with one message naming the importing file and line.
 *
 * Only local specifiers (`./`, `../`, `/`, `file:`) are checked, through the
 * local modules they reach; a specifier names a module that is there when
 * the path, or the path with a module extension or an `index` file, exists
 * (Bun's lookup; Deno's is stricter and reports the rest itself).
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { staticImports } from "./static_imports.ts";

/** A local import whose module does not exist. */
export interface MissingImport {
  /** The specifier as written. */
  specifier: string;
  /** The path it names. */
  path: string;
  /** The module that imports it. */
  file: string;
  /** 1-based line of the specifier in `file`. */
  line: number;
}

const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"];
const SOURCE = new Set([".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"]);
/** How many local modules one check reads at most. */
const MAX_MODULES = 200;

function localPath(specifier: string, importer: string): string | null {
  const bare = specifier.replace(/[?#].*$/, "");
  if (bare.startsWith("file:")) {
    try {
      return fileURLToPath(bare);
    } catch {
      return null;
    }
  }
  if (!/^(\.{1,2})?\//.test(bare)) return null; // a package, npm:, jsr:, http:…
  return resolve(dirname(importer), bare);
}

/** The file a local path loads, or null when none of its candidates exists. */
function existing(path: string): string | null {
  if (existsSync(path)) return path;
  const stem = SOURCE.has(extname(path)) ? path.slice(0, -extname(path).length) : path;
  for (const ext of EXTENSIONS) {
    if (existsSync(stem + ext)) return stem + ext;
    if (existsSync(`${path}/index${ext}`)) return `${path}/index${ext}`;
  }
  return null;
}

/**
 * The first local import, in `file` or a local module it reaches, whose
 * module does not exist.
 *
 * @param file the module (absolute path)
 * @returns the missing import, or null
 *
 * @example
 * ```ts
 * import { missingImport } from "./missing_import.ts";
 * missingImport("/w/workflow.ts"); // { specifier: "./nope.ts", path: "/w/nope.ts", file: "/w/workflow.ts", line: 1 }
 * ```
 */
export function missingImport(file: string): MissingImport | null {
  const seen = new Set<string>([file]);
  const queue = [file];
  while (queue.length > 0 && seen.size <= MAX_MODULES) {
    const importer = queue.shift()!;
    let source: string;
    try {
      source = readFileSync(importer, "utf8");
    } catch {
      continue; // unreadable (a directory, no permission): the import itself reports it
    }
    for (const { specifier, line } of staticImports(source)) {
      const path = localPath(specifier, importer);
      if (path === null) continue;
      const found = existing(path);
      if (found === null) return { specifier, path, file: importer, line };
      if (SOURCE.has(extname(found)) && !seen.has(found)) {
        seen.add(found);
        queue.push(found);
      }
    }
  }
  return null;
}

/**
 * Imports a user's module after checking its local imports: a missing one
 * throws an error shaped like Bun's build errors (`position` names the
 * importing file and line), which `importFailure` (`./import_error.ts`) reads.
 *
 * @param file the module (absolute path)
 * @returns the module's namespace
 * @throws Error `Module not found "<path>"` with `position: { file, line }`
 */
export function importChecked(file: string): Promise<Record<string, unknown>> {
  const missing = missingImport(file);
  if (missing !== null) {
    const e = new Error(`Module not found "${missing.path}"`);
    return Promise.reject(
      Object.assign(e, { position: { file: missing.file, line: missing.line } }),
    );
  }
  return import(pathToFileURL(file).href);
}
