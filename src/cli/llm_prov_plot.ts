/**
 * `llm prov --plot FILE` (`provenance.md` §10.5): the DOT text drawn by
 * Graphviz `dot` into a temp file, then written to FILE in place.
 *
 * @module
 */
import { resolve } from "node:path";
import { ScoutError } from "../errors.ts";
import { writeInPlaceSync } from "../util/in_place.ts";
import { runDot } from "./graphviz_run.ts";
import type { Io } from "./io.ts";

/**
 * Renders `dot` with Graphviz into a temp file, then writes it to `given`
 * in place (through a link, straight to a pipe; directories made), or to
 * stdout for `-` (SVG, as `--dot -` prints the DOT; R128-3: a file named
 * `-` was written in the working directory).
 *
 * @param dot the DOT text
 * @param given the plot file as given (relative to `io.cwd`)
 * @param format `svg`, `png` or `pdf`
 * @param io injected I/O (its cwd and env)
 * @throws ScoutError `not_available` without Graphviz, `io` when `dot` fails
 */
export function plot(dot: string, given: string, format: string, io: Io): void {
  const out = resolve(io.cwd, given);
  const r = runDot(dot, format, io.env);
  if (r.error !== undefined) {
    const missing = r.error.code === "ENOENT";
    throw new ScoutError(
      missing ? "not_available" : "io",
      missing
        ? "Graphviz 'dot' is not installed (needed for --plot; --dot FILE writes the DOT text)"
        : `Cannot run Graphviz 'dot': ${r.error.message}`,
    );
  }
  if (r.drawn === null) {
    const how = r.signal
      ? `killed by ${r.signal}`
      : r.status === 0
      ? "wrote nothing"
      : `exit ${r.status}`;
    throw new ScoutError(
      "io",
      `Graphviz 'dot' failed (${how}) drawing "${out}": ${r.stderr.trim()}`,
      { file: out },
    );
  }
  if (given === "-") io.stdout.write(new TextDecoder().decode(r.drawn));
  else writeInPlaceSync(out, r.drawn, given);
}
