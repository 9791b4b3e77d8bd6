import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { QUESTION, runExample } from "../../fixtures/agents/run.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("the example society (tools/deno task example) runs end to end against the loopback provider", async () => {
  await using dir = await tempDir();
  const run = await runExample({ out: dir.path, plot: true });
  assert.match(run.answer, /1\. Bake the loaf first with bread flour/);
  assert.equal(run.requests, 8); // every scripted reply used, none missing
  const chat = parse(readFileSync(run.chat, "utf8"));
  assert.ok(chat.some((m) => m.role === "user" && m.content === QUESTION));
  const calls = chat.filter((m) => m.role === "function_call").map((m) =>
    JSON.parse(String(m.content)) as { name: string; arguments: Record<string, string> }
  );
  // the Researcher twice in one conversation, then the Critic once without one
  assert.deepEqual(calls.map((c) => [c.name, c.arguments.agent, c.arguments.conversation]), [
    ["ask", "Researcher", "facts"],
    ["ask", "Researcher", "facts"],
    ["ask", "Critic", undefined],
  ]);
  const outputs = chat.filter((m) => m.role === "function_call_output").map((m) =>
    JSON.parse(String(m.content)) as { content: string; agent_meta?: unknown[] }
  );
  assert.deepEqual(outputs.map((o) => o.content), [
    "Use bread flour: 12-14% protein builds strong gluten.",
    "Use cake flour (7-9% protein) so the crumb stays tender.",
    "Both bakes share one oven: schedule the loaf first, the sponge needs a cooler oven.",
  ]);
  // receipts: the Researcher's first answer took two inferences (the lookup tool, then text)
  assert.deepEqual(outputs.map((o) => o.agent_meta?.length), [2, 1, 1]);
  // the workflow tool really ran: the Researcher's second request carries the lookup output,
  // and the continued conversation ("facts") holds the first exchange in its third request
  const sent = (i: number) => JSON.stringify(run.bodies[i]);
  assert.match(sent(2), /Bread flour has 12-14% protein; it builds strong gluten\./);
  assert.match(sent(4), /What flour does a crusty loaf need\?/);
  assert.match(sent(4), /And for the sponge cake\?/);
  assert.doesNotMatch(sent(6), /crusty loaf/); // the Critic starts a fresh conversation
  // provenance: the Planner's four own inferences and the specialists' four receipts
  assert.match(run.prov, /^chat total=1\.2K .*plan\.chat\n/);
  assert.match(run.prov, /delegated receipt: 4 events, total=365, ask/);
  assert.ok(run.plot !== null && existsSync(run.plot));
  assert.match(readFileSync(run.plot, "utf8"), /<svg/);
  assert.ok(existsSync(join(run.home, "Agent", "Researcher", "workflow.ts")));
});
