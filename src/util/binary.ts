/**
 * Whether code runs inside the compiled `scout-ai` binary (`bun build
 * --compile`) rather than from source (`deno run`, `bun cli.ts`).
 *
 * @module
 */

/**
 * True when `moduleUrl` is a module embedded in a compiled Bun binary: such
 * modules report a URL in the binary's own file system (`file:///$bunfs/…`,
 * `/~BUN/…` or `B:/~BUN/…` on Windows).
 *
 * @param moduleUrl a module's `import.meta.url`
 * @returns true inside the binary
 */
export function inCompiledBinary(moduleUrl: string): boolean {
  const path = new URL(moduleUrl).pathname;
  return /^\/(\$bunfs|~BUN)\//.test(path) || /^\/?[A-Z]:\/~BUN\//.test(path);
}
