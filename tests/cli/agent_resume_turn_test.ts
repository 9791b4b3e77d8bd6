/**
 * A named specialist conversation continued in a later process (`agent ask -c
 * F -o F`, each turn its own process) is rebuilt as the specialist had it
 * (`agents.md` §3.4): what it inherited is the caller's chat as it stood when
 * the caller's turn began — not the tool calls of that turn's earlier rounds
 * or of the same reply, which were not yet in the caller's chat — and its
 * chat totals (`_c`) go on from the last receipt, as in one process (R101).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { parseMeta } from "../../src/chat/meta.ts";
import { runScout, tempDir } from "../support/cli.ts";
import {
  type ProviderServer,
  type ScriptStep,
  type ScriptToolCall,
  startProviderServer,
} from "../support/provider_server.ts";
import { put } from "../support/files.ts";

type Wire = { role: string; content: string | null; tool_calls?: { id: string }[] };

/** One line per wire message: role and content, a tool-call message by its call ids. */
const line = (m: Wire) =>
  m.tool_calls
    ? `${m.role} calls ${m.tool_calls.map((c) => c.id).join(",")}`
    : `${m.role} ${m.content}`;

/**
 * Boss's turn, by round: `rounds[k]` (given the request's message count) is
 * round k+1's calls; after them, "boss done". Worker answers
 * `worker answer <n>` with 3 prompt tokens, or fails while `fail` says so.
 */
function provider(
  rounds: ((n: number) => ScriptToolCall[])[],
  fail: (workerRequest: number) => boolean = () => false,
): Promise<ProviderServer> {
  let workerRequests = 0;
  return startProviderServer({
    fallback: (req): ScriptStep => {
      const msgs = req.body.messages as Wire[];
      if (msgs[0]!.content === "You are Worker") {
        if (fail(++workerRequests)) return { status: 400, message: "bad worker request" };
        return { text: `worker answer ${msgs.length}`, usage: { pt: 3, ct: 1 } };
      }
      const question = msgs.findLastIndex((m) => m.role === "user");
      const round = msgs.slice(question).filter((m) => m.role === "assistant").length;
      const calls = rounds[round]?.(msgs.length);
      return calls ? { toolCalls: calls } : { text: "boss done" };
    },
  });
}

const lookup = (q: string, id: string): ScriptToolCall => ({
  name: "lookup",
  id,
  arguments: { q },
});
const ask = (n: number, args: Record<string, unknown>): ScriptToolCall => ({
  name: "ask",
  id: `call_ask_${n}`,
  arguments: { agent: "Worker", prompt: `inh2 q ${n}`, ...args },
});

/** A Boss workflow with the tool `lookup`; `chatTask`: its `ask` task runs Boss's turns (§1.4). */
function workflowText(dir: string, chatTask: boolean): string {
  const ask = chatTask
    ? `...api.chatTask("ask", async ({ agent, chat }) => await agent(${
      JSON.stringify(dir)
    }, { chat: chat() })), `
    : "";
  return `export default (api) => api.workflow("BossTools", { tasks: { ${ask}lookup: { type: "string", inputs: { q: api.input.string({}) }, run: ({ q }) => "result for " + q } }, exports: { exec: ["lookup"] } });\n`;
}

/** Boss (socializing, tool line `Pantry count`) and Worker under `dir`; runs one turn per process. */
function setup(dir: string, srv: ProviderServer, chatTask = false) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(
    dir,
    "Agent/Boss/start_chat",
    "system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n\ntool: Pantry count\n",
  );
  put(dir, "Agent/Boss/workflow.ts", workflowText(join(dir, "Agent", "Boss"), chatTask));
  put(dir, "Agent/Worker/start_chat", "system: You are Worker\n\nendpoint: ep\n");
  put(
    dir,
    "workflows/Pantry/workflow.ts",
    `export default { tasks: { count: { type: "string", inputs: {}, run: () => "3" } } };\n`,
  );
  put(dir, "ic.chat", "user: earlier question\n\nassistant: earlier answer\n");
  return async (question: string) => {
    const r = await runScout(
      ["agent", "ask", "Boss", "-c", "ic.chat", "-o", "ic.chat", "--no-cache", question],
      { env: { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" }, cwd: dir },
    );
    assert.equal(r.code, 0, r.stderr);
  };
}

/** Worker's requests: their messages, and the names of the tools they offered. */
const workerRequests = (srv: ProviderServer) =>
  srv.requests.filter((r) => (r.body.messages as Wire[])[0]!.content === "You are Worker").map(
    (r) => ({
      messages: (r.body.messages as Wire[]).map(line),
      tools: ((r.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name),
    }),
  );

const EARLIER = ["user earlier question", "assistant earlier answer"];
/** What each inheritance mode copies of the caller's chat when turn 1 began. */
const INHERITED: Record<string, string[]> = {
  none: [],
  tools: [],
  conversation: [...EARLIER, "user inh2 turn 1"],
};

for (const chatTask of [false, true]) {
  for (const mode of ["none", "tools", "conversation"]) {
    const route = chatTask ? "task route" : "direct route";
    Deno.test(`${route}, inherit ${mode}: turn 2 continues the conversation the specialist had, not the calls before its ask`, async () => {
      await using t = await tempDir();
      await using srv = await provider([
        () => [lookup("round1", "call_1_L")],
        (n) => [ask(n, { conversation: "c10", inherit: mode })],
      ]);
      const turn = setup(t.path, srv, chatTask);
      await turn("inh2 turn 1");
      await turn("inh2 turn 2");
      const [first, second] = workerRequests(srv);
      const q1 = first!.messages.at(-1)!;
      assert.deepEqual(first!.messages, ["system You are Worker", ...INHERITED[mode]!, q1]);
      assert.deepEqual(second!.messages, [
        "system You are Worker",
        ...INHERITED[mode]!,
        q1,
        `assistant worker answer ${first!.messages.length}`,
        second!.messages.at(-1)!,
      ]);
      assert.match(second!.messages.at(-1)!, /^user inh2 q \d+$/);
      // inherit tools: the caller's tool line reaches the specialist in both turns
      const tools = mode === "tools" ? ["count"] : [];
      assert.deepEqual([first!.tools, second!.tools], [tools, tools]);
    });
  }
}

Deno.test("an ask in one reply with other calls: its rebuilt conversation holds none of them", async () => {
  await using t = await tempDir();
  await using srv = await provider([
    (n) => [
      lookup("a", "call_1_a"),
      lookup("b", "call_1_b"),
      ask(n, { conversation: "c10", inherit: "conversation" }),
    ],
  ]);
  const turn = setup(t.path, srv);
  await turn("inh2 turn 1");
  await turn("inh2 turn 2");
  const [first, second] = workerRequests(srv);
  const start = ["system You are Worker", ...EARLIER, "user inh2 turn 1", "user inh2 q 4"];
  assert.deepEqual(first!.messages, start);
  const q2 = second!.messages.at(-1)!;
  assert.match(q2, /^user inh2 q \d+$/);
  assert.deepEqual(second!.messages, [...start, "assistant worker answer 5", q2]);
});

Deno.test("a conversation whose first call failed is continued from where that call began it", async () => {
  await using t = await tempDir();
  await using srv = await provider([
    () => [lookup("round1", "call_1_L")],
    (n) => [ask(n, { conversation: "c10", inherit: "conversation" })],
  ], (n) => n === 1);
  const turn = setup(t.path, srv);
  await turn("inh2 turn 1"); // the Worker fails: the conversation began here, nothing answered
  await turn("inh2 turn 2"); // begun again in a new process: as it began in turn 1
  await turn("inh2 turn 3");
  const [failed, second, third] = workerRequests(srv).map((r) => r.messages);
  const start = ["system You are Worker", ...EARLIER, "user inh2 turn 1"];
  assert.deepEqual(failed, [...start, failed!.at(-1)!]);
  assert.deepEqual(second, [...start, second!.at(-1)!]);
  assert.deepEqual(third, [
    ...start,
    second!.at(-1)!,
    `assistant worker answer ${second!.length}`,
    third!.at(-1)!,
  ]);
});

/** The token counts and chat totals of the receipts in the caller's saved chat. */
function receiptTotals(dir: string): number[][] {
  const chat = parse(readFileSync(join(dir, "ic.chat"), "utf8"));
  return chat.filter((m) => m.role === "function_call_output").flatMap((m) =>
    (JSON.parse(String(m.content)).agent_meta ?? []) as { content: string }[]
  ).map((r) => parseMeta(r.content)).map((r) => [Number(r.pt), Number(r.pt_c), Number(r.tt_c)]);
}

Deno.test("a conversation's chat totals (_c) go on in the next process as in one", async () => {
  // two calls a turn on w3, two turns in two processes
  await using t = await tempDir();
  await using srv = await provider([
    (n) => [ask(n, { conversation: "w3" }), ask(n + 100, { conversation: "w3" })],
  ]);
  const turn = setup(t.path, srv);
  await turn("inh2 turn 1");
  await turn("inh2 turn 2");
  // the same four calls in one turn of one process
  await using one = await tempDir();
  await using srv1 = await provider([
    (n) => [1, 2, 3, 4].map((k) => ask(n + 100 * k, { conversation: "w3" })),
  ]);
  await setup(one.path, srv1)("inh2 turn 1");
  const expected = [[3, 3, 4], [3, 6, 8], [3, 9, 12], [3, 12, 16]];
  assert.deepEqual(receiptTotals(one.path), expected);
  assert.deepEqual(receiptTotals(t.path), expected);
});
