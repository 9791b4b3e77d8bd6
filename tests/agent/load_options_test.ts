/**
 * Options given to `loadAgent` against the option lines of the agent's start
 * chat (R82-3, [TS-FIX] §7.5): the caller's win, in the library as with
 * `agent ask -e/-m` (one rule, applied by `loadAgent`); the lines the caller
 * leaves alone still apply. The Ruby-parity sides that stay: a specialist's
 * own lines win over the options it inherits from its caller (§3.3), and an
 * agent on the task route keeps its lines in the job's chat (§1.5).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { chat, current } from "../../src/agent/agent.ts";
import { clearAgentCache, loadAgent } from "../../src/agent/load.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

type Wire = { role: string; content: string };

/** Endpoints `ep` and `pinned-ep` (models ep-model, pinned-ep-model) at `url`; load options. */
function home(dir: string, url: string) {
  const h = join(dir, "home");
  put(h, "etc/AI/ep.yaml", `backend: openai\nurl: ${url}\nmodel: ep-model\n`);
  put(h, "etc/AI/pinned-ep.yaml", `backend: openai\nurl: ${url}\nmodel: pinned-ep-model\n`);
  clearAgentCache();
  return { env: { SCOUT_HOME: h, OPENAI_API_KEY: "sk-x" }, cwd: dir, warn: () => {} };
}

Deno.test("loadAgent: the caller's model/endpoint win over the start chat's lines, as agent ask -m does (R82-3)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "ok" }) });
  const opts = home(t.path, srv.url);
  put(
    t.path,
    "Agent/Pinned/start_chat",
    "system: You are Pinned\n\nendpoint: pinned-ep\n\nmodel: pinned-model\n",
  );
  const ask = async (options?: Record<string, unknown>) => {
    const a = await loadAgent("Pinned", { ...opts, ...(options ? { options } : {}) });
    current(a).push({ role: "user", content: "which model?" });
    await chat(a);
    return srv.requests.at(-1)!.body.model;
  };
  assert.equal(await ask(), "pinned-model"); // no caller's option: the line applies
  assert.equal(await ask({ model: "caller-model" }), "caller-model");
  // the caller's endpoint wins over the line; the model line the caller left alone still applies
  assert.equal(await ask({ endpoint: "ep" }), "pinned-model");
  const a = await loadAgent("Pinned", { ...opts, options: { endpoint: "ep", model: "m2" } });
  assert.deepEqual(a.options, { endpoint: "ep", model: "m2" });
  // the lines are out of the start chat (as agent ask lifts them): a conversation's prefix
  assert.deepEqual(a.startChat.map((m) => m.role), ["system"]);
});

Deno.test("loadAgent: a specialist's own start-chat line still wins over the options it inherits (§3.3, R82-3)", async () => {
  await using t = await tempDir();
  await using srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      if (msgs[0]!.content !== "You are Boss") return { text: "worker answer" };
      if (msgs.at(-1)!.role === "tool") return { text: "boss done" };
      return {
        toolCalls: [{ id: "c1", name: "ask", arguments: { agent: "Worker", prompt: "p" } }],
      };
    },
  });
  const opts = home(t.path, srv.url);
  put(t.path, "Agent/Boss/start_chat", "system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(
    t.path,
    "Agent/Worker/start_chat",
    "system: You are Worker\n\nendpoint: ep\n\nmodel: worker-model\n",
  );
  const boss = await loadAgent("Boss", { ...opts, options: { model: "caller-model" } });
  current(boss).push({ role: "user", content: "plan it" });
  assert.equal((await chat(boss)).text, "boss done");
  const models = srv.requests.map((q) =>
    `${(q.body.messages as Wire[])[0]!.content}: ${q.body.model}`
  );
  assert.deepEqual(models, [
    "You are Boss: caller-model",
    "You are Worker: worker-model",
    "You are Boss: caller-model",
  ]);
});

Deno.test("loadAgent: an agent on the task route keeps its start chat's lines for the job's chat (R82-3)", async () => {
  await using t = await tempDir();
  const opts = home(t.path, "http://127.0.0.1:9");
  put(t.path, "Agent/Routed/start_chat", "system: You are Routed\n\nmodel: line-model\n");
  put(
    t.path,
    "Agent/Routed/workflow.ts",
    `export default (api) => api.workflow("Routed", {
  tasks: { ...api.chatTask("ask", async ({ agent, chat }) => await agent(null, { chat: chat() })) },
});
`,
  );
  const a = await loadAgent("Routed", { ...opts, options: { model: "caller-model" } });
  assert.deepEqual(a.startChat.map((m) => [m.role, m.content]), [
    ["system", "You are Routed"],
    ["model", "line-model"],
  ]);
  assert.deepEqual(a.options, { model: "caller-model" });
});
