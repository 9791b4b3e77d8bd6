/**
 * A user's module loaded by the compiled binary (Bun) keeps its positions
 * (R94-1). Bun's runtime transpiler minifies the syntax of every file it
 * loads from disk and so inlines a single-use `const` into its use: a throw
 * there (`const o = JSON.parse("null"); … return o.x;`) was reported at the
 * `const`'s line. No flag of `bun build --compile`, runtime option or
 * environment variable turns that off; Bun's bundler does not inline unless
 * asked to minify. So, under Bun only, a runtime plugin transpiles each such
 * file with `Bun.build` (that file alone: every import left external; an
 * inline source map back to the file) and hands Bun the result, which starts
 * with the `// @bun` pragma that makes the runtime take it as it is. Stack
 * traces then name the file's own path and lines, as under Deno. A file the
 * bundler cannot transpile (a syntax error) or that is CommonJS is handed over
 * as it is, for the runtime's own transpiler and its own messages.
 *
 * Files inside the binary (`/$bunfs/`) and under `node_modules` are left to
 * the runtime. Elsewhere (Deno) nothing is registered.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { extname } from "node:path";

/** What `onLoad` gives Bun: the module's text and how to read it. */
interface Loaded {
  contents: string;
  loader: string;
}

/** The part of Bun's API used here. */
interface BunApi {
  plugin(p: {
    name: string;
    setup(build: {
      onLoad(o: { filter: RegExp }, load: (args: { path: string }) => Promise<Loaded>): void;
    }): void;
  }): void;
  build(o: Record<string, unknown>): Promise<{
    success: boolean;
    outputs: { text(): Promise<string> }[];
  }>;
}

/** A source file on disk, outside Bun's embedded files and `node_modules`. */
const USER_SOURCE =
  /^(?!\/\$bunfs\/|[A-Za-z]:[\\/]~BUN[\\/])(?![^]*[\\/]node_modules[\\/])[^]*\.(?:m?[jt]s|[jt]sx)$/;

/** `process.env.NODE_ENV` and `BUN_ENV` read when run, as Bun's runtime leaves them. */
const LIVE_ENV = {
  "process.env.NODE_ENV": "process.env.NODE_ENV",
  "process.env.BUN_ENV": "process.env.BUN_ENV",
};

let registered = false;

function runtimeLoader(path: string): string {
  const ext = extname(path);
  return ext === ".tsx" || ext === ".jsx" ? ext.slice(1) : ext.endsWith("ts") ? "ts" : "js";
}

const MAP = /\n\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * `text` with its inline source map naming `path` itself: the bundler names
 * the file relative to the working directory, which the runtime reads
 * relative to the file's own directory.
 */
function mapTo(text: string, path: string): string | undefined {
  const m = MAP.exec(text);
  if (m === null) return undefined;
  const map = JSON.parse(Buffer.from(m[1]!, "base64").toString("utf8"));
  map.sources = [path];
  const b64 = Buffer.from(JSON.stringify(map), "utf8").toString("base64");
  return `${text.slice(0, m.index)}\n//# sourceMappingURL=data:application/json;base64,${b64}\n`;
}

/** `path` transpiled alone by Bun's bundler, or undefined when it cannot be. */
async function bundled(bun: BunApi, path: string): Promise<string | undefined> {
  try {
    const r = await bun.build({
      entrypoints: [path],
      target: "bun",
      format: "esm",
      external: ["*"],
      sourcemap: "inline",
      define: LIVE_ENV,
    });
    const text = r.success ? await r.outputs[0]?.text() : undefined;
    // CommonJS comes back wrapped, its exports changed: the runtime loads it as it is
    return text !== undefined && text.startsWith("// @bun") && !text.includes("__commonJS(")
      ? mapTo(text, path)
      : undefined;
  } catch {
    return undefined; // a syntax error: the runtime's transpiler reports it
  }
}

/**
 * Registers, once and under Bun only, the plugin that loads user modules
 * with their positions kept. A no-op under another runtime.
 *
 * @example
 * ```ts ignore
 * import { keepUserModulePositions } from "./bun_loader.ts";
 * keepUserModulePositions();
 * await import("file:///w/agent.ts"); // a throw names agent.ts's own line under Bun too
 * ```
 */
export function keepUserModulePositions(): void {
  const bun = (globalThis as { Bun?: BunApi }).Bun;
  if (registered || bun === undefined) return;
  registered = true;
  bun.plugin({
    name: "scout-ai user module positions",
    setup(build) {
      build.onLoad({ filter: USER_SOURCE }, async ({ path }) => {
        const text = await bundled(bun, path);
        return text !== undefined
          ? { contents: text, loader: "js" }
          : { contents: readFileSync(path, "utf8"), loader: runtimeLoader(path) };
      });
    },
  });
}
