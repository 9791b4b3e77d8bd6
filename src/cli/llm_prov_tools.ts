/**
 * `scout-ai llm prov ROOT --tools`: every tool invocation the walk finds —
 * tool, agent, status (ok / error / missing output), duration, shortened
 * arguments — as a table, or the `scout-ai/tool-calls` JSON document with
 * `--json`. Built on the shared pairing primitive
 * (`src/provenance/tool_calls.ts`), the same one ChatAnalyst's
 * `chat_tool_calls` uses.
 *
 * @module
 */
import type { Io } from "./io.ts";
import { warn } from "./io.ts";

/** What `--tools` needs from `llm prov`. */
export interface ProvToolsOptions {
  /** Absolute root path. */
  root: string;
  /** `chat` or `job`. */
  rootType: "chat" | "job";
  /** Job roots, searched in order. */
  jobRoots: string[];
  /** JSON document instead of the table. */
  json: boolean;
  /** Print warnings on stderr. */
  warnings: boolean;
}

/**
 * Prints the tool-call report.
 *
 * @param o options
 * @param io injected I/O
 * @returns exit code (0, also with warnings)
 */
export async function runProvTools(o: ProvToolsOptions, io: Io): Promise<number> {
  const { provenanceToolCalls } = await import("../provenance/tool_calls.ts");
  const r = await import("../provenance/render_tool_calls.ts");
  const { calls, warnings, root } = provenanceToolCalls(o.root, {
    rootType: o.rootType,
    cwd: io.cwd,
    jobRoots: o.jobRoots,
    env: io.env,
  });
  if (o.json) io.stdout.write(JSON.stringify(r.toolCallsJson(root, calls, warnings)) + "\n");
  else io.stdout.write(r.renderToolCalls(calls, io.cwd));
  if (o.warnings) { for (const w of warnings) warn(io, r.escapeLine(w.message)); }
  return 0;
}
