/**
 * The runtimes a bench runs its children under: Deno (`deno run`, how the
 * source runs) and Bun (the runtime of the shipped binary), both as installed
 * by `tools/setup`.
 *
 * @module
 */
import { join } from "node:path";

const ROOT = join(import.meta.dirname!, "..");
const BUN = join(ROOT, "tools", "node_modules", ".bin", "bun");

/** A runtime the children run under. */
export interface Runtime {
  /** Its name and version, e.g. `Bun 1.4.5`. */
  name: string;
  /** The command line that runs `script` with `args`. */
  command: (script: string, args: string[]) => string[];
}

/**
 * The runtimes to run under; a Bun that is not installed is left out, and
 * said so on stderr.
 *
 * @param which `deno`, `bun` or `both`
 * @returns the runtimes, Deno first
 */
export function benchRuntimes(which = "both"): Runtime[] {
  const deno: Runtime = {
    name: `Deno ${Deno.version.deno}`,
    command: (script, args) => [
      Deno.execPath(),
      "run",
      "-q",
      "-A",
      `--config=${join(ROOT, "deno.json")}`,
      script,
      ...args,
    ],
  };
  const out: Runtime[] = [];
  if (which !== "bun") out.push(deno);
  if (which !== "deno") {
    let version = "";
    try {
      const v = new Deno.Command(BUN, { args: ["--version"], stdout: "piped" }).outputSync();
      version = new TextDecoder().decode(v.stdout).trim();
    } catch { /* not installed */ }
    if (version) {
      out.push({ name: `Bun ${version}`, command: (script, args) => [BUN, script, ...args] });
    } else console.error(`Bun is not installed (${BUN}; run tools/setup): its rows are left out`);
  }
  return out;
}
