/**
 * Flat views (`--flow`, `--dot`, Mermaid) have no nesting, so labels that
 * repeat are qualified until they differ: the calling conversation of a
 * nested society log, then the job whose log it is, then the sha256 of the
 * path (a chat's short id; a job's label already ends with its own).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { distinctLabels } from "../../src/provenance/render_flow.ts";
import type { ReportNode } from "../../src/provenance/report.ts";
import { runMain } from "../support/cli.ts";
import { assertRenders, mkJob, tmp, tok, write } from "./support.ts";

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

Deno.test("R87-3: a qualifier that does not separate the repeats is skipped; long labels are shortened in the middle, kept distinct", () => {
  const log = `${J}/Boss/ask/tools-d9c4d804f800_a7f1c0de00112233445566778899aabb.chat.files/log`;
  const r1 = "society/Researcher/_oneshot-1";
  const nodes = [
    node(`${log}/${r1}.chat`, "Researcher · _oneshot-1"),
    node(`${log}/${r1}/${r1}.chat`, "Researcher · _oneshot-1"),
    node(`${log}/${r1}/${r1}/${r1}.chat`, "Researcher · _oneshot-1"),
  ];
  const labels = distinctLabels(nodes);
  // both nested logs sit in one job: `in Boss/ask/tools-…` tells them no more apart
  assert.equal(labels[0], "Researcher · _oneshot-1");
  for (const l of labels.slice(1)) {
    assert.match(l, /^Researcher · _oneshot-1 ← Researcher · _oneshot-1 [0-9a-f]{8}$/);
  }
  assert.equal(new Set(labels).size, 3);

  // labels over 60 characters are shortened in the middle, and stay distinct
  const long = (mid: string) => "A".repeat(40) + ` ${mid} ` + "Z".repeat(40);
  const two = [
    node(`/w/a/x.chat`, long("left")),
    node(`/w/b/x.chat`, long("right")),
    node(`/w/c/y.chat`, `${"B".repeat(50)} ← ${"C".repeat(20)}`),
    node(`/w/d/z.chat`, "short.chat"),
  ];
  const shortened = distinctLabels(two);
  for (const l of shortened) assert.ok([...l].length <= 60, l);
  assert.equal(new Set(shortened).size, 4, shortened.join("\n"));
  assert.match(shortened[0]!, /^A+…Z+ [0-9a-f]{8}$/);
  assert.equal(shortened[2], "B".repeat(29) + "…" + "B".repeat(7) + " ← " + "C".repeat(20));
  assert.equal(shortened[3], "short.chat");
  // --long is never shortened
  assert.deepEqual(distinctLabels(two, { long: true }), two.map((n) => n.path));

  // callers that differ where the middle is cut: the path digest tells them apart
  const conv = (k: string) => `${k}${"z".repeat(40)}`;
  const cut = ["c1", "c2"].map((k) =>
    node(`/w/log/society/Researcher/${conv(k)}/society/Librarian/x.chat`, "Librarian · x")
  );
  const cutLabels = distinctLabels(cut);
  assert.notEqual(cutLabels[0], cutLabels[1]);
  for (const l of cutLabels) {
    assert.equal([...l].length, 60, l);
    assert.match(l, /^Librarian · x ← Researche…z+ [0-9a-f]{8}$/);
  }
});

Deno.test("R87-3: llm prov --flow/--dot of nested same-name one-shots in one job: no `in <job>`, labels at most 60 characters", async () => {
  await using d = await tmp();
  const name = "tools-d9c4d804f800_a7f1c0de00112233445566778899aabb.chat";
  const r1 = "society/Researcher/_oneshot-1";
  const chat = (id: string, pt: number) =>
    `user: go\n\nmeta: ${tok(id, pt, undefined, pt)}\n\nassistant: ok\n`;
  mkJob(join(d.path, "store", "Boss", "ask", name), null, {
    "agent.chat": chat("a", 5),
    [`${r1}.chat`]: chat("b", 6),
    [`${r1}/${r1}.chat`]: chat("c", 7),
    [`${r1}/${r1}/${r1}.chat`]: chat("d", 8),
  }, { workflow: "Boss", task_name: "ask", type: "chat" });
  write(join(d.path, "s.chat"), `user: x\n\nmeta: job=Boss/ask/${name}\n\nassistant: y\n`);
  const prov = async (...args: string[]) => {
    const r = await runMain(["llm", "prov", "s.chat", "-J", join(d.path, "store"), ...args], {
      cwd: d.path,
      env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const flow = await prov("--flow");
  const chats = flow.split("\n").filter((l) => / Chat {2}Researcher/.test(l));
  assert.equal(chats.length, 3, flow);
  assert.doesNotMatch(flow, / in Boss\//);
  assert.match(flow, /Researcher · _oneshot-1 ← Researcher · _oneshot-1 [0-9a-f]{8} /);
  const dot = await prov("--dot", "-");
  const labels = [...dot.matchAll(/label="(?:Job|Chat)\\n(.*?)\\n/g)].map((m) => m[1]!);
  assert.equal(labels.length, 5, dot);
  assert.equal(new Set(labels).size, 5, dot);
  for (const l of labels) assert.ok([...l].length <= 60, l);
  assertRenders(dot);
});
