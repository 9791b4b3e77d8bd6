/**
 * Flat views (`--flow`, `--dot`, Mermaid) have no nesting, so labels that
 * repeat are qualified until they differ: the calling conversation of a
 * nested society log, then the job whose log it is, then the short id.
 */
import assert from "node:assert/strict";
import { distinctLabels } from "../../src/provenance/render_flow.ts";
import type { ReportNode } from "../../src/provenance/report.ts";

const J = "/h/var/jobs";
const node = (path: string, label: string) => ({ path, label, job: null }) as unknown as ReportNode;

Deno.test("repeated labels are qualified by caller, then job, then short id; unique ones stay", () => {
  const nodes = [
    node(
      `${J}/Boss/ask/B1.chat.files/log/society/Librarian/_oneshot-1.chat`,
      "Librarian · _oneshot-1",
    ),
    node(
      `${J}/Boss/ask/B1.chat.files/log/society/Researcher/facts/society/Librarian/_oneshot-1.chat`,
      "Librarian · _oneshot-1",
    ),
    node(`${J}/Planner/ask/P1.chat.files/log/society/Critic/default.chat`, "Critic · default"),
    node(`${J}/Planner/ask/P2.chat.files/log/society/Critic/default.chat`, "Critic · default"),
    node(`/w/a.chat`, "a.chat"),
    node(`/w/x/same.chat`, "same.chat"),
    node(`/w/y/same.chat`, "same.chat"),
  ];
  const labels = distinctLabels(nodes);
  assert.deepEqual(labels.slice(0, 5), [
    "Librarian · _oneshot-1",
    "Librarian · _oneshot-1 ← Researcher · facts",
    "Critic · default in Planner/ask/P1",
    "Critic · default in Planner/ask/P2",
    "a.chat",
  ]);
  assert.match(labels[5]!, /^same\.chat [0-9a-f]{8}$/);
  assert.equal(new Set(labels).size, labels.length);
  // --long shows paths, which never repeat
  assert.deepEqual(distinctLabels(nodes, { long: true }), nodes.map((n) => n.path));
});
