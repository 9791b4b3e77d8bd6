import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { QUESTION, runExample } from "../../fixtures/agents/run.ts";
import { tempDir } from "../support/cli.ts";

Deno.test("the example society (tools/deno task example) runs end to end against the loopback provider", async () => {
  await using dir = await tempDir();
  const run = await runExample({ out: dir.path, plot: true });
  assert.match(run.answer, /1\. Bake the crusty loaf first with bread flour/);
  assert.equal(run.requests, 11); // every scripted reply used, none missing
  const chat = parse(readFileSync(run.chat, "utf8"));
  // the question, then the chat task's projection: `meta: job=` first, no empty message
  // (reading the job's result back must not leak the parser's synthetic empty user)
  assert.deepEqual(chat.slice(1, 3).map((m) => [m.role, m.content]), [
    ["user", QUESTION],
    ["meta", chat[2]!.content],
  ]);
  assert.match(String(chat[2]!.content), /^job=Planner\/ask\/Default_[0-9a-f]{32}\.chat$/);
  assert.ok(chat.slice(1).every((m) => m.content !== ""), JSON.stringify(chat));
  const calls = chat.filter((m) => m.role === "function_call").map((m) =>
    JSON.parse(String(m.content)) as { name: string; arguments: Record<string, string> }
  );
  // the Researcher twice in one conversation, the Planner's own tool, the hand-off
  assert.deepEqual(calls.map((c) => [c.name, c.arguments.agent, c.arguments.conversation]), [
    ["ask", "Researcher", "facts"],
    ["ask", "Researcher", "facts"],
    ["schedule", undefined, undefined],
    ["hand_off_to_Critic", undefined, undefined],
  ]);
  const outputs = chat.filter((m) => m.role === "function_call_output").map((m) =>
    JSON.parse(String(m.content)) as { content: string; agent_meta?: { content: string }[] }
  );
  assert.deepEqual(outputs.map((o) => o.content), [
    "Use bread flour: 12-14% protein builds strong gluten (Flour Water Salt Yeast, ch. 3).",
    "Use cake flour (7-9% protein) so the crumb stays tender.",
    "1. crusty loaf (230 C)\n2. sponge cake (175 C)",
    "The oven must cool from 230 C to 175 C between the bakes: check it before the sponge goes in.",
  ]);
  // receipts: the Researcher's first answer took three inferences (lookup, ask the
  // Librarian, text) and carries the Librarian's one; the Critic answered through
  // its own chat task job
  assert.deepEqual(outputs.map((o) => o.agent_meta?.length), [4, 1, undefined, 1]);
  assert.match(
    outputs[3]!.agent_meta![0]!.content,
    /^job=Critic\/ask\/Default_[0-9a-f]{32}\.chat$/,
  );
  // the workflow tool really ran (the Researcher's second request carries its output),
  // the Librarian starts fresh, the continued conversation ("facts") holds the first
  // exchange, and the Critic sees only the handed-off message
  const sent = (i: number) => JSON.stringify(run.bodies[i]);
  assert.match(sent(2), /Bread flour has 12-14% protein; it builds strong gluten\./);
  assert.doesNotMatch(sent(3), /crusty loaf need/);
  assert.match(sent(6), /What flour does a crusty loaf need\?/);
  assert.match(sent(6), /And for the sponge cake\?/);
  assert.match(sent(9), /Risks\?/);
  assert.doesNotMatch(sent(9), /What flour does a crusty loaf need\?/);
  // the job's files: the Planner's log and its society, the Librarian nested under the Researcher
  const jobs = join(run.home, "var", "jobs");
  const planner = readdirSync(join(jobs, "Planner", "ask")).find((f) => f.endsWith(".chat"))!;
  const log = join(jobs, "Planner", "ask", planner + ".files", "log");
  for (
    const f of [
      "agent.chat",
      "society/Researcher/facts.chat",
      "society/Researcher/facts/society/Librarian/_oneshot-1.chat",
      "society/Critic/default.chat",
    ]
  ) assert.ok(existsSync(join(log, f)), f);
  // provenance: the job, the agents' logs (nested), the delegated job, 1678 tokens once
  assert.match(run.prov, /^chat total=1\.7K prompt=1\.4K cont=311 plan\.chat\n/);
  assert.match(run.prov, /\n {2}job total=1\.7K prompt=1\.4K cont=311 Planner\/ask [0-9a-f]{8}\n/);
  assert.match(
    run.prov,
    /\n {4}chat total=666 .* Researcher · facts\n/,
  );
  assert.match(
    run.prov,
    /\n {6}chat total=128 .* Librarian · _oneshot-1\n/,
  );
  assert.match(run.prov, /\n {6}job total=192 prompt=149 cont=43 Critic\/ask [0-9a-f]{8}\n/);
  assert.match(run.prov, /job delegated-job Critic\/ask [0-9a-f]{8} \(seen\)/);
  assert.ok(run.plot !== null && existsSync(run.plot));
  const svg = readFileSync(run.plot, "utf8");
  assert.match(svg, /<svg/);
  assert.match(
    svg,
    />Librarian · _oneshot&#45;1</, // `-` escaped
  );
  assert.ok(existsSync(join(run.home, "Agent", "Researcher", "workflow.ts")));
});

Deno.test("the example society runs from a home whose path has a space and non-ASCII letters (R102-5)", async () => {
  await using dir = await tempDir();
  // the agents find their siblings through import.meta.url, whose path is percent-encoded
  const run = await runExample({ out: join(dir.path, "My Runs/hünï"), plot: false });
  assert.match(run.answer, /1\. Bake the crusty loaf first with bread flour/);
  assert.equal(run.requests, 11);
  assert.ok(existsSync(join(dir.path, "My Runs", "hünï", "home", "var", "jobs", "Planner", "ask")));
});
