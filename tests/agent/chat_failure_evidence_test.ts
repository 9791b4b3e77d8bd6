/**
 * An in-process `agentChat` that fails appends nothing to the live chat (as
 * in Ruby); what the failed turn produced — on the task route, its job's
 * `meta job=…` marker — is `failureMessages(e)`, exported by `mod.ts`, so a
 * library user can keep the evidence as `agent ask -o` does: `llm prov` of
 * the saved chat then counts what the failed turn paid for, and without it
 * counts nothing.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentChat, agentCurrent, failureMessages, loadAgent, print } from "../../mod.ts";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { wire } from "./delegation_support.ts";
import { put } from "../support/files.ts";

/** Agent FU: its workflow's `ask` is a chat task that asks FU's chat directly (one tool round). */
function setUp(dir: string, url: string) {
  const home = join(dir, "home");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  const here = join(dir, "Agent", "FU");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${url}\nmodel: m\nmax_retries: 0\n`);
  put(here, "start_chat", "system: hi\n\nendpoint: ep\n");
  put(
    here,
    "workflow.ts",
    `export default (api) => api.workflow("FU", { tasks: {
  ...api.chatTask("ask", async ({ agent, chat }) => await agent(${
      JSON.stringify(here)
    }, { chat: chat() })),
  noop: { type: "string", inputs: {}, run: () => "ok" } }, exports: { exec: ["noop"] } });\n`,
  );
  clearAgentCache();
  return { env, here };
}

/** `llm prov --json` total tokens of `messages` saved as a chat in `dir`. */
async function provTokens(dir: string, env: Record<string, string>, messages: unknown[]) {
  const file = join(dir, `saved-${crypto.randomUUID()}.chat`);
  writeFileSync(file, print(messages as Parameters<typeof print>[0]));
  const r = await runMain(["llm", "prov", "--json", file], { env, cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).totals.deduplicated_total.tt as number;
}

Deno.test("a failed in-process agentChat appends nothing; failureMessages(e) is its job's marker, which llm prov counts", async () => {
  await using t = await tempDir();
  // one paid round (a tool call, 15 tokens), then the provider refuses the next request
  await using srv = await startProviderServer({
    fallback: (req) =>
      wire(req).at(-1)!.role === "tool"
        ? { status: 400, message: "broke" }
        : { toolCalls: [{ name: "noop", id: "c1", arguments: {} }], usage: { pt: 10, ct: 5 } },
  });
  const { env, here } = setUp(t.path, srv.url);
  const agent = await loadAgent(here, { runtime: { env, cwd: t.path } });
  agentCurrent(agent).push({ role: "user", content: "question" });
  const before = agentCurrent(agent).map((m) => ({ ...m }));
  const failure = await agentChat(agent).then(() => null, (e: unknown) => e);
  assert.ok(failure instanceof Error, "the turn fails");
  assert.equal(srv.requests.length, 2);
  assert.deepEqual(agentCurrent(agent), before, "nothing appended to the live chat");

  const produced = failureMessages(failure);
  assert.equal(produced.length, 1, JSON.stringify(produced));
  assert.equal(produced[0]!.role, "meta");
  assert.match(String(produced[0]!.content), /^job=FU\/ask\/Default_[0-9a-f]+\.chat$/);
  assert.equal(await provTokens(t.path, env, agentCurrent(agent)), 0, "the live chat alone");
  agentCurrent(agent).push(...produced);
  assert.equal(
    await provTokens(t.path, env, agentCurrent(agent)),
    15,
    "with the failed job's logs",
  );
});
