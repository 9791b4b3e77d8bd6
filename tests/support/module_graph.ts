/**
 * The module graph of `src/` as Deno resolves it (`deno info --json` over
 * every file: static, type-only and dynamic imports alike), and the two house
 * rules read off it (DESIGN.md §1): no import circle between files, and each
 * folder imports only the folders below it ({@link ALLOWED}).
 *
 * @module
 */
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** File → the files it imports (paths relative to `src/`). */
export type ModuleGraph = Map<string, Set<string>>;

/**
 * What each part of `src/` may import besides itself (DESIGN.md §1): a folder
 * (its sub-folders count as the folder) or a top-level file. `cli/` is the top
 * and may import anything.
 */
export const ALLOWED: Record<string, readonly string[]> = {
  "errors.ts": [],
  "version.ts": [],
  util: ["errors.ts"],
  config: ["errors.ts", "util"],
  // compile reads the config store and allowed paths (read-only settings, no I/O of its own)
  chat: ["config", "errors.ts", "util"],
  prompt: ["chat", "config", "errors.ts", "util"],
  kb: ["config", "errors.ts", "util"],
  workflow: ["chat", "config", "errors.ts", "util"],
  tools: ["chat", "config", "errors.ts", "kb", "util", "workflow"],
  llm: ["chat", "config", "errors.ts", "prompt", "tools", "util"],
  provenance: ["chat", "errors.ts", "util", "workflow"],
  chat_analyst: ["chat", "config", "errors.ts", "provenance", "util", "workflow"],
  agent: ["chat", "config", "errors.ts", "kb", "llm", "prompt", "tools", "util", "workflow"],
};

/**
 * The part of `src/` a file belongs to: its top folder, or the file itself
 * at the top.
 *
 * @param file path relative to `src/`
 * @returns the part's name
 */
export function partOf(file: string): string {
  const slash = file.indexOf("/");
  return slash < 0 ? file : file.slice(0, slash);
}

/**
 * Reads the module graph of every `.ts` file under `srcDir` with `deno info
 * --json` (one run over a root that imports them all).
 *
 * @param deno the Deno executable
 * @param srcDir the `src/` directory
 * @param config the project's deno.json (for the npm imports' names)
 * @returns the graph, within `src/`
 */
export async function readModuleGraph(
  deno: string,
  srcDir: string,
  config: string,
): Promise<ModuleGraph> {
  const files: string[] = [];
  for await (const e of Deno.readDir(srcDir)) await collect(srcDir, e, files);
  const root = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      root,
      files.map((f) => `import "${pathToFileURL(f).href}";\n`).join(""),
    );
    const out = await new Deno.Command(deno, {
      args: ["info", "--json", `--config=${config}`, root],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    return graphOf(JSON.parse(new TextDecoder().decode(out.stdout)), srcDir);
  } finally {
    await Deno.remove(root);
  }
}

async function collect(dir: string, e: Deno.DirEntry, out: string[]): Promise<void> {
  const path = join(dir, e.name);
  if (e.isDirectory) {
    for await (const c of Deno.readDir(path)) await collect(path, c, out);
  } else if (e.isFile && e.name.endsWith(".ts")) out.push(path);
}

interface InfoDependency {
  code?: { specifier?: string };
  type?: { specifier?: string };
}

interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

function graphOf(info: { modules: InfoModule[] }, srcDir: string): ModuleGraph {
  const inSrc = (url: string | undefined) => {
    if (!url?.startsWith("file://")) return null;
    const rel = relative(srcDir, fileURLToPath(url));
    return rel.startsWith("..") ? null : rel;
  };
  const graph: ModuleGraph = new Map();
  for (const m of info.modules) {
    const from = inSrc(m.specifier);
    if (from === null) continue;
    const to = new Set<string>();
    for (const d of m.dependencies ?? []) {
      for (const url of [d.code?.specifier, d.type?.specifier]) {
        const rel = inSrc(url);
        if (rel !== null) to.add(rel);
      }
    }
    graph.set(from, to);
  }
  return graph;
}

/**
 * The import circles of a graph: its strongly connected components of more
 * than one file (or a file importing itself), each sorted.
 *
 * @param graph the module graph
 * @returns the circles
 */
export function importCircles(graph: ModuleGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (let w = ""; w !== v;) {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    }
    if (part.length > 1 || graph.get(v)?.has(v)) circles.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/**
 * The imports that break the layers ({@link ALLOWED}): `from → to` for each
 * import of a part it may not use (`cli/` may use any).
 *
 * @param graph the module graph
 * @param allowed what each part may import
 * @returns the offending imports, sorted
 */
export function layerBreaches(
  graph: ModuleGraph,
  allowed: Record<string, readonly string[]> = ALLOWED,
): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    const part = partOf(from);
    if (part === "cli") continue;
    const may = allowed[part];
    for (const to of tos) {
      const target = partOf(to);
      if (target === part) continue;
      if (!may?.includes(target)) out.push(`${from} → ${to}`);
    }
  }
  return out.sort();
}
