/**
 * Workflow documentation (`workflow.md` §1.5): `workflow.md` (else
 * `README.md`) beside the workflow file — first paragraph = title, text up to
 * a `# Tasks` line = description, each `## <task>` section = that task's
 * description. Programmatic title/description fill what is still empty.
 *
 * @module
 */
import { setOwn } from "../util/own_record.ts";
import type { WorkflowDocumentation } from "./define.ts";

/**
 * Parses workflow documentation text.
 *
 * @param text markdown
 * @returns title, description and per-task descriptions
 *
 * @example
 * ```ts
 * import { parseWorkflowDoc } from "./docs.ts";
 * parseWorkflowDoc("# Baking\n\nMakes cakes.\n\n# Tasks\n\n## whisk\n\nWhisk eggs\n").tasks.whisk; // "Whisk eggs"
 * ```
 */
export function parseWorkflowDoc(text: string): WorkflowDocumentation {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const tasksAt = lines.findIndex((l) => /^#\s*tasks\b/i.test(l.trim()));
  const head = (tasksAt >= 0 ? lines.slice(0, tasksAt) : lines).join("\n").trim();
  const paragraphs = head.split(/\n\s*\n/);
  const title = (paragraphs[0] ?? "").replace(/^#+\s*/, "").trim();
  const description = paragraphs.slice(1).join("\n\n").trim();
  const tasks: Record<string, string> = {};
  if (tasksAt >= 0) {
    let current: string | null = null;
    let buf: string[] = [];
    const flush = () => {
      // defined, not assigned: under Bun a `## __proto__` section set no description
      if (current !== null) setOwn(tasks, current, buf.join("\n").trim());
    };
    for (const l of lines.slice(tasksAt + 1)) {
      const m = /^##\s+(\S+)\s*$/.exec(l);
      if (m) {
        flush();
        current = m[1]!;
        buf = [];
      } else buf.push(l);
    }
    flush();
  }
  return { title, description, tasks };
}
