/**
 * docs/provenance-json.md says what the document holds in words the schema
 * cannot check: the labels of society logs and the messages of unresolved
 * job references. Checked here on the bundled society run.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runMain } from "../support/cli.ts";

const DOC = readFileSync(join(ROOT, "docs", "provenance-json.md"), "utf8");
const SOCIETY = "fixtures/provenance/society";

async function json(...args: string[]): Promise<{
  nodes: { label: string | null; path: string }[];
  warnings: { code: string; message: string }[];
}> {
  const r = await runMain(["llm", "prov", `${SOCIETY}/plan.chat`, ...args, "--json"], {
    cwd: ROOT,
  });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

Deno.test("docs/provenance-json.md: a society log's label is `Agent · conversation`, as the doc says", async () => {
  const doc = await json("-J", `${SOCIETY}/jobs`);
  const critic = doc.nodes.find((n) => n.path.endsWith("/society/Critic/default.chat"))!;
  assert.equal(critic.label, "Critic · default");
  // before: "log chats relative to their job's `log/` directory" (society/Critic/default.chat)
  assert.ok(DOC.includes("society logs `Agent · conversation` (`Critic · default`)"));
});

Deno.test("docs/provenance-json.md: each unresolved reference's message has a wording the doc gives", async () => {
  // without its job store, the root's marker and its receipt both name missing jobs
  const doc = await json();
  const start = DOC.indexOf("and a `message` saying which");
  const para = DOC.slice(start, DOC.indexOf("\n\n", start)).replace(/\n/g, " ");
  // the doc's quoted wordings (`"<path>"` stands for any quoted path)
  const wordings = para.split("`").filter((x, i) => i % 2 === 1 && x.includes(" ")).map((x) =>
    new RegExp(x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace('"<path>"', '".*"'))
  );
  assert.ok(wordings.length >= 2, para);
  const unresolved = doc.warnings.filter((w) => w.code === "unresolved_job_reference");
  assert.equal(unresolved.length, 2);
  for (const w of unresolved) {
    // before: the doc lacked the receipt's "not found under the working directory or any job root"
    assert.ok(
      wordings.some((x) => x.test(w.message)),
      `${w.message} (doc: ${wordings.join(" | ")})`,
    );
  }
});
