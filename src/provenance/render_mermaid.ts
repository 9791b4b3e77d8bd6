/**
 * A Mermaid flowchart of the provenance flow (`llm prov --mermaid`): the same
 * nodes and arrows as `--flow`/`--dot`, in a form GitHub renders inside
 * Markdown. Node ids are positional (`n0`, `n1`…), so no path ever reaches
 * an identifier; labels are quoted and every character Mermaid could read as
 * markup is written as an entity code.
 *
 * @module
 */
import type { ProvenanceReport } from "./report.ts";
import { type FlowLabel, flowModel } from "./render_flow.ts";
import { nodeFailed, type RenderOptions } from "./render_tree.ts";
import { incompleteText } from "./incomplete.ts";

const ENTITY: Record<string, string> = {
  "#": "#35;",
  '"': "#quot;",
  "<": "#lt;",
  ">": "#gt;",
  "&": "#amp;",
  "`": "#96;",
  "|": "#124;",
  "[": "#91;",
  "]": "#93;",
  "{": "#123;",
  "}": "#125;",
  "(": "#40;",
  ")": "#41;",
  "\\": "#92;", // Mermaid reads a literal `\n` as a line break (R99-4)
};

/**
 * Escapes text for a quoted Mermaid label: markup characters and `\` as
 * entity codes, line breaks as `<br/>`.
 *
 * @param text label text
 * @returns the escaped label (without the quotes)
 */
export function mermaidText(text: string): string {
  return text
    .replace(/[#"<>&`|[\]{}()\\]/g, (c) => ENTITY[c]!)
    .replace(/\r\n|\r|\n/g, "<br/>");
}

const ARROW: Record<FlowLabel, string> = {
  result: "==>",
  delegated_result: "-->",
  dependency: "-->",
  log: "-.->",
  attempt: "-.->",
};

/**
 * Renders the flow as a Mermaid `flowchart LR`: jobs as rectangles, chats as
 * rounded boxes (tokens on a second line), arrows labelled by relation
 * (`log` dotted, `result` thick), failed nodes with a red border (class
 * `failed`); an incomplete walk's chart has a title that says so.
 *
 * @param report the report
 * @param o component / long
 * @returns Mermaid text (put it in a ```mermaid fence)
 */
export function renderMermaid(report: ProvenanceReport, o: RenderOptions = {}): string {
  const m = flowModel(report, o);
  // R127-1: the front matter's title is drawn above the chart (a JSON string is a YAML one)
  const incomplete = incompleteText(report);
  const lines = incomplete === null
    ? ["flowchart LR"]
    : ["---", `title: ${JSON.stringify(incomplete)}`, "---", "flowchart LR"];
  m.nodes.forEach((x, i) => {
    const job = x.node.kind === "job";
    const text = mermaidText(`${job ? "Job" : "Chat"}: ${x.label}\n${x.tokens} tokens`);
    lines.push(job ? `  n${i}["${text}"]` : `  n${i}("${text}")`);
  });
  for (const a of m.arrows) {
    lines.push(`  n${a.from} ${ARROW[a.label]}|${a.label}| n${a.to}`);
  }
  lines.push("  classDef job fill:#f7f7f7,stroke:#333;");
  const jobs = m.nodes.flatMap((x, i) => x.node.kind === "job" ? [`n${i}`] : []);
  if (jobs.length) lines.push(`  class ${jobs.join(",")} job;`);
  // R127-5: failed jobs and conversations as the DOT draws them (after `job`: its stroke wins)
  const failed = m.nodes.flatMap((x, i) => nodeFailed(x.node) ? [`n${i}`] : []);
  if (failed.length) {
    lines.push("  classDef failed stroke:#c62828,stroke-width:2px;");
    lines.push(`  class ${failed.join(",")} failed;`);
  }
  return lines.join("\n") + "\n";
}
