/**
 * Flat views (`--flow`, `--dot`, Mermaid) have no nesting, so labels that
 * repeat are qualified until they differ: the calling conversation of a
 * nested society log, then the job whose log it is, then the sha256 of the
 * path (a chat's short id; a job's label already ends with its own).
 */
import assert from "node:assert/strict";
import { distinctLabels } from "../../src/provenance/render_flow.ts";
import type { ReportNode } from "../../src/provenance/report.ts";

const J = "/h/var/jobs";
const node = (path: string, label: string) => ({ path, label, job: null }) as unknown as ReportNode;
const jobNode = (path: string, label: string) =>
  ({ path, label, kind: "job", job: { shortId: "b4bd4948" } }) as unknown as ReportNode;

Deno.test("repeated labels are qualified by caller, then job, then path digest; unique ones stay", () => {
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
    // one job name in two stores: the short id (already in the label) is not repeated
    jobNode(`/s1/W/t/Default_b4bd4948975eaeee0510916bd4f0e87a`, "W/t b4bd4948"),
    jobNode(`/s2/W/t/Default_b4bd4948975eaeee0510916bd4f0e87a`, "W/t b4bd4948"),
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
  assert.match(labels[7]!, /^W\/t b4bd4948 [0-9a-f]{8}$/);
  assert.doesNotMatch(labels[7]!, /b4bd4948 b4bd4948/);
  assert.equal(new Set(labels).size, labels.length);
  // --long shows paths, which never repeat
  assert.deepEqual(distinctLabels(nodes, { long: true }), nodes.map((n) => n.path));
});
