/**
 * A named specialist conversation continued in a later run (`agent ask -c F
 * -o F`): the specialist lived in the earlier process only, so its
 * conversation is rebuilt from the caller's chat — what its first call
 * inherited, then each prompt and answer — on the direct route and on the
 * task route (a chat task continued from the conversation).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { socialTaskWorkflowText } from "../agent/delegation_support.ts";
import { put } from "../support/files.ts";

type Wire = { role: string; content: string };

/** Boss asks Worker in conversation "facts" (prompt from the user's question); Worker answers. */
function server() {
  return startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      const last = msgs.at(-1)!;
      if (msgs[0]!.content === "You are Worker") return { text: `noted: ${last.content}` };
      if (last.role === "tool") return { text: "boss done" };
      const question = [...msgs].reverse().find((m) => m.role === "user")!.content;
      return {
        toolCalls: [{
          name: "ask",
          id: `c${msgs.length}`,
          arguments: { agent: "Worker", prompt: `about ${question}`, conversation: "facts" },
        }],
      };
    },
  });
}

function setup(dir: string, srv: ProviderServer, workflow: string | null) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(dir, "Agent/Boss/start_chat", "system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(dir, "Agent/Worker/start_chat", "system: You are Worker\n\nendpoint: ep\n");
  if (workflow !== null) put(dir, "Agent/Boss/workflow.ts", workflow);
  clearAgentCache();
  return (...args: string[]) =>
    runMain(["agent", "ask", "Boss", "--no-cache", ...args], {
      env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" },
      cwd: dir,
    });
}

/** Two runs on one chat: the Worker's second turn holds the first. */
async function assertContinued(run: ReturnType<typeof setup>, srv: ProviderServer) {
  assert.equal((await run("-c", "s.chat", "-o", "s.chat", "the oven")).code, 0);
  const second = await run("-c", "s.chat", "-o", "s.chat", "the flour");
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(workerTurns(srv).at(-1), [
    "system You are Worker",
    "user about the oven",
    "assistant noted: about the oven",
    "user about the flour",
  ]);
}

const workerTurns = (srv: ProviderServer) =>
  srv.requests.filter((r) => (r.body.messages as Wire[])[0]!.content === "You are Worker")
    .map((r) => (r.body.messages as Wire[]).map((m) => `${m.role} ${m.content}`));

Deno.test("agent ask -c F -o F: a named specialist conversation continues in the next run", async () => {
  await using t = await tempDir();
  await using srv = await server();
  const run = setup(t.path, srv, null);
  await assertContinued(run, srv);
});

Deno.test("task route: a chat task continued from the conversation continues its specialist's", async () => {
  await using t = await tempDir();
  await using srv = await server();
  const here = join(t.path, "Agent", "Boss");
  const run = setup(t.path, srv, socialTaskWorkflowText("ResumeBoss", here));
  await assertContinued(run, srv);
});
