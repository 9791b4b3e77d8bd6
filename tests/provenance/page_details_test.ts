/**
 * What the page shows of a chat (`llm prov --html`): its messages as written,
 * without the empty `user` message the parser puts first when the file
 * starts with a role line (`provenance.md` §1.5) — but a first message
 * written without a role line is kept. And with `--by`, the page still
 * shows each node's cost.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pageDetails } from "../../src/provenance/page_details.ts";
import { provenanceReport } from "../../src/provenance/report.ts";
import { runMain } from "../support/cli.ts";
import { tmp, write } from "./support.ts";
import { SOCIETY_FIXTURE } from "../../fixtures/provenance/record_society.ts";

Deno.test("page details: no empty user message first; text before any role line is kept", async () => {
  await using d = await tmp();
  const roles = write(join(d.path, "roles.chat"), "user: hi\n\nassistant: hello\n");
  const bare = write(join(d.path, "bare.chat"), "hi there\n\nassistant: hello\n");
  for (const [path, first] of [[roles, "hi"], [bare, "hi there"]] as const) {
    const details = pageDetails(provenanceReport(path));
    const m = details.get(`chat:${path}`)!;
    assert.deepEqual(m.messages, [
      { role: "user", text: first },
      { role: "assistant", text: "hello" },
    ]);
    assert.equal(m.omitted, undefined);
  }
  // the cap counts messages, not the placeholder
  const many = write(
    join(d.path, "many.chat"),
    Array.from({ length: 5 }, (_, i) => `user: q${i}\n\n`).join(""),
  );
  const capped = pageDetails(provenanceReport(many), { nodeMessages: 3 }).get(`chat:${many}`)!;
  assert.deepEqual(capped.messages!.map((m) => m.text), ["q0", "q1", "q2"]);
  assert.equal(capped.omitted, 2);
});

/** The page's data: the JSON in its `prov-data` element. */
function pageData(html: string): { nodes: { label: string; cost?: unknown }[] } {
  const m = /<script type="application\/json" id="prov-data">(.*?)<\/script>/s.exec(html);
  return JSON.parse(m![1]!);
}

Deno.test("--html with --by: the page still shows each node's cost", async () => {
  await using d = await tmp();
  const home = join(d.path, "home");
  write(join(home, "etc", "prices.yaml"), "gpt-5-nano:\n  input: 0.05\n  output: 0.40\n");
  write(
    join(d.path, "s.chat"),
    "user: hi\n\nmeta: pt=10 ct=5 tt=15 inference_id=i1 model=gpt-5-nano\n\nassistant: hello\n",
  );
  for (const by of [[], ["--by", "model"]]) {
    const page = join(d.path, "p.html");
    const r = await runMain(["llm", "prov", "s.chat", "--html", page, ...by], {
      cwd: d.path,
      env: { SCOUT_HOME: home, NO_COLOR: "1" },
    });
    assert.equal(r.code, 0, r.stderr);
    const node = pageData(await Deno.readTextFile(page)).nodes[0]!;
    assert.deepEqual(node.cost, { direct: "$0.0000025", subtree: "$0.0000025" }, by.join(" "));
  }
});

Deno.test("page: a job shows its own conversation (log/agent.chat: system prompt and metas), not only its result", async () => {
  await using d = await tmp();
  const page = join(d.path, "s.html");
  const r = await runMain(["llm", "prov", "plan.chat", "-J", "jobs", "--html", page], {
    cwd: SOCIETY_FIXTURE,
    env: { SCOUT_HOME: join(d.path, "home"), NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const nodes = pageData(await Deno.readTextFile(page)).nodes as {
    label: string;
    source?: string;
    messages: { role: string; text: string }[] | null;
  }[];
  const planner = nodes.find((n) => n.label.startsWith("Planner/ask"))!;
  assert.equal(planner.source, "log/agent.chat");
  const roles = planner.messages!.map((m) => m.role);
  assert.ok(roles.includes("system"), roles.join(","));
  assert.equal(roles.filter((r) => r === "meta").length >= 1, true, roles.join(","));
  // a chat's own messages come from its file, with no source line
  const root = nodes.find((n) => n.label === "plan.chat")!;
  assert.equal(root.source, undefined);
  assert.ok(root.messages!.length > 0);
});
