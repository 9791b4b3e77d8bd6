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
import type { JobRef } from "../provenance/types.ts";
import type { Io } from "./io.ts";
import { warn } from "./io.ts";
import { jsonText } from "../util/json_text.ts";

/** What `--tools` needs from `llm prov`. */
export interface ProvToolsOptions {
  /** Absolute root path; or several roots, each a chat's path or a job's reference. */
  root: string | (string | JobRef)[];
  /** `chat` or `job` (of a single root). */
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
  const several = Array.isArray(o.root);
  const { calls, warnings, root, roots } = provenanceToolCalls(o.root, {
    ...(several ? {} : { rootType: o.rootType }),
    cwd: io.cwd,
    jobRoots: o.jobRoots,
    env: io.env,
  });
  if (o.json) {
    io.stdout.write(jsonText(r.toolCallsJson(root, calls, warnings, roots)) + "\n");
  } else io.stdout.write(r.renderToolCalls(calls, io.cwd));
  if (o.warnings) { for (const w of warnings) warn(io, r.escapeLine(w.message)); }
  return 0;
}
