/**
 * A hand-off conversation continued in a later process (`agent ask -c F -o
 * F`, each turn its own process) goes on as in one process (`agents.md` §3.5:
 * one live agent whose history a `new_conversation` resets): the delegate is
 * rebuilt from the caller's chat as a named `ask` conversation is (R131-4),
 * a restart still resets it, and `llm prov` counts every inference once.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/chat/parse.ts";
import { runScout, tempDir } from "../support/cli.ts";
import { type ProviderServer, startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

type Wire = { role: string; content: string | null };

/**
 * Boss hands off once a turn (the turn's question says how: `restart` adds
 * `new_conversation: true`), then answers; the Editor answers with its
 * request's message count. Usage is distinct per side (Boss 5+1, Editor 7+2).
 */
function provider(): Promise<ProviderServer> {
  return startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      if (msgs[0]!.content === "You are Editor") {
        return { text: `editor answer ${msgs.length}`, usage: { pt: 7, ct: 2 } };
      }
      if (msgs.at(-1)!.role === "tool") return { text: "boss done", usage: { pt: 5, ct: 1 } };
      const question = String(msgs.at(-1)!.content);
      const restart = question.includes("restart") ? { new_conversation: true } : {};
      return {
        toolCalls: [{
          name: "hand_off_to_Editor",
          id: `call_${msgs.length}`,
          arguments: { message: `polish ${question}`, ...restart },
        }],
        usage: { pt: 5, ct: 1 },
      };
    },
  });
}

/** Boss (socializing, handing off to the Editor) under `dir`; runs one turn per process. */
function setup(dir: string, srv: ProviderServer, chatTask: boolean) {
  const home = join(dir, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(dir, "Agent/Boss/start_chat", "system: You are Boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(
    dir,
    "Agent/Boss/agent.ts",
    `export default async (api, boss) => {
  api.delegate(boss, await api.loadAgent("Editor"), "Editor", "Hand the text to the Editor");
};\n`,
  );
  if (chatTask) {
    put(
      dir,
      "Agent/Boss/workflow.ts",
      `export default (api) => api.workflow("HandOffBoss", { tasks: { ...api.chatTask("ask", async ({ agent, chat }) => await agent(${
        JSON.stringify(join(dir, "Agent", "Boss"))
      }, { chat: chat() })) } });\n`,
    );
  }
  put(dir, "Agent/Editor/start_chat", "system: You are Editor\n\nendpoint: ep\n");
  put(dir, "d.chat", "");
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  return {
    env,
    turn: async (question: string) => {
      const r = await runScout(
        ["agent", "ask", "Boss", "-c", "d.chat", "-o", "d.chat", "--no-cache", question],
        { env, cwd: dir },
      );
      assert.equal(r.code, 0, r.stderr);
    },
  };
}

/** The Editor's requests, one line per message (role and content). */
const editorRequests = (srv: ProviderServer) =>
  srv.requests.map((r) => r.body.messages as Wire[]).filter((m) =>
    m[0]!.content === "You are Editor"
  ).map((m) => m.map((x) => `${x.role} ${x.content}`));

/** The `conversation` each hand-off's output in the saved chat records (none for `default`). */
function recorded(dir: string): (string | undefined)[] {
  return parse(readFileSync(join(dir, "d.chat"), "utf8"))
    .filter((m) => m.role === "function_call_output")
    .map((m) => JSON.parse(String(m.content)).conversation);
}

/** The names of the Editor's society logs in every job under `home`, sorted. */
function editorLogs(home: string): string[] {
  const jobs = join(home, "var", "jobs", "HandOffBoss", "ask");
  return readdirSync(jobs).filter((f) => f.endsWith(".files")).flatMap((f) => {
    const dir = join(jobs, f, "log", "society", "Editor");
    return existsSync(dir) ? readdirSync(dir) : [];
  }).sort();
}

for (const chatTask of [false, true]) {
  const route = chatTask ? "task route" : "direct route";

  Deno.test(`${route}: a hand-off continued in the next process keeps its history (R131-4)`, async () => {
    await using t = await tempDir();
    await using srv = await provider();
    const { turn } = setup(t.path, srv, chatTask);
    await turn("S4 go");
    await turn("S4 again");
    assert.deepEqual(editorRequests(srv), [
      ["system You are Editor", "user polish S4 go"],
      [
        "system You are Editor",
        "user polish S4 go",
        "assistant editor answer 2",
        "user polish S4 again",
      ],
    ]);
    assert.deepEqual(recorded(t.path), [undefined, undefined]);
  });

  Deno.test(`${route}: new_conversation still resets it; the next process goes on in _default-2, prov counts each inference once`, async () => {
    await using t = await tempDir();
    await using srv = await provider();
    const { turn, env } = setup(t.path, srv, chatTask);
    await turn("S4 go");
    await turn("S4 restart");
    await turn("S4 third");
    await turn("S4 restart again");
    assert.deepEqual(editorRequests(srv), [
      ["system You are Editor", "user polish S4 go"],
      ["system You are Editor", "user polish S4 restart"],
      [
        "system You are Editor",
        "user polish S4 restart",
        "assistant editor answer 2",
        "user polish S4 third",
      ],
      ["system You are Editor", "user polish S4 restart again"],
    ]);
    // a later process numbers its restart after the conversations the chat records
    assert.deepEqual(recorded(t.path), [undefined, "_default-2", "_default-2", "_default-3"]);
    const prov = await runScout(["llm", "prov", "--json", "d.chat"], { env, cwd: t.path });
    assert.equal(prov.code, 0, prov.stderr);
    const root = JSON.parse(prov.stdout).nodes[0] as { tokens: { subtree: { tt: number } } };
    // four turns: Boss 2 × 6 each, Editor 9 each
    assert.equal(root.tokens.subtree.tt, 4 * (2 * 6 + 9));
    // each job logs the conversations it ran in; the last job's restart ended one it never ran
    if (chatTask) {
      assert.deepEqual(editorLogs(join(t.path, "home")), [
        "_default-2.chat",
        "_default-2.chat",
        "_default-3.chat",
        "default.chat",
      ]);
    }
  });
}
