/**
 * The evidence report (`llm prov X -e`) on the recorded society: the id
 * column fits Scout's 36-character inference ids, so every row's tokens start
 * under the `Tokens` header; and the Planner's and the Critic's top-level
 * logs, both `log/agent.chat`, are named by their paths from the job store
 * (a file name two chats share names neither), while a file name only one
 * chat has stays as it is.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderEvidence } from "../../src/provenance/render_evidence.ts";
import { provenanceReport } from "../../src/provenance/report.ts";
import { runMain } from "../support/cli.ts";
import { tmp, write } from "./support.ts";
import { SOCIETY_FIXTURE } from "../../fixtures/provenance/record_society.ts";

const PLANNER_LOG =
  "Planner/ask/Default_cefe35d22d3230689b5106496c2f2c0e.chat.files/log/agent.chat";
const CRITIC_LOG = "Critic/ask/Default_7306c721a4a0b9b93a429f47ef56241b.chat.files/log/agent.chat";

Deno.test("evidence report: columns fit UUID ids; two agent.chat logs are told apart", async () => {
  const r = await runMain(["llm", "prov", "plan.chat", "-J", "jobs", "--flow", "-e"], {
    cwd: SOCIETY_FIXTURE,
    env: { NO_COLOR: "1" },
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  const head = lines.findIndex((l) => l.startsWith("Inference ID "));
  const tokensAt = lines[head]!.indexOf("Tokens");
  const evidenceAt = lines[head]!.indexOf("Evidence");
  const rows = lines.slice(head + 1, lines.indexOf("", head));
  assert.equal(rows.length, 11);
  for (const row of rows) {
    assert.match(row, /^[0-9a-f-]{36} /);
    assert.equal(row.indexOf("total="), tokensAt, row);
    assert.equal(row.indexOf(" chat_meta ") + 1, evidenceAt, row);
  }
  assert.doesNotMatch(r.stdout, /[ ;]agent\.chat:/, "no bare agent.chat location");
  assert.equal(rows.filter((l) => l.includes(`chat_meta ${PLANNER_LOG}:`)).length, 5);
  assert.equal(rows.filter((l) => l.includes(`chat_meta ${CRITIC_LOG}:5 `)).length, 1);
  // file names no other chat has are kept short
  assert.ok(rows.some((l) => l.includes("chat_meta facts.chat:4; agent_meta plan.chat:4")));
  assert.ok(r.stdout.includes(` at ${PLANNER_LOG}:18[agent_meta,0] call=call_c1 `));
});

Deno.test("evidence report: 200,000 events are one table (the column widths are no spread of 200,000 arguments)", async () => {
  await using d = await tmp();
  const metas = Array.from(
    { length: 200_000 },
    (_, i) => `meta: pt=10 ct=1 tt=11 inference_id=${crypto.randomUUID()}-${i}\n\n`,
  );
  const chat = write(join(d.path, "big.chat"), `user: go\n\n${metas.join("")}assistant: ok\n`);
  const lines = renderEvidence(provenanceReport(chat)).split("\n");
  assert.ok(lines.length > 200_000, String(lines.length));
});
