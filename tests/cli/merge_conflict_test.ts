/**
 * A chat with git merge-conflict markers ([TS-FIX] `chat.md` §7, R86-3):
 * `llm ask` / `agent ask` refuse it (`-c`, `-c -`, `-o`) before any request,
 * exit 1 with one line naming `file:line`; a chat task refuses its chat input;
 * `chat parse`, `chat compile`, `chat prompt` and `llm prov` warn and go on.
 * The same lines in a ``` fence, or a lone `=======`, are no conflict.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, runScout, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { CONFLICTED_TURNS, DISCUSSED_CONFLICT } from "../support/merge_conflict.ts";
import { put } from "../support/files.ts";

const CONFLICTED = "system: be brief\n\n" + CONFLICTED_TURNS;
/** The same lines, quoted in a fence: a question about a conflict. */
const FENCED = "user:\n\nWhat does this mean?\n\n```\n" + CONFLICTED + "```\n";
/** A markdown heading underlined with =======. */
const UNDERLINED = "user:\n\nTitle\n=======\n\nSummarise the title.\n";

const REFUSED =
  /^scout-ai: Merge conflict in "conf\.chat": resolve the <<<<<<< \/ ======= \/ >>>>>>> markers first \(conf\.chat:3\)\n$/;

async function setup(answer = "the answer") {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: answer }) });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  return {
    dir,
    srv,
    env,
    run: (args: string[], stdin?: string) =>
      runMain([...args, ...flags], { env, cwd: dir.path, ...(stdin ? { stdin } : {}) }),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** A workflow `Echo` whose chat task `ask` answers "echo " and the last message. */
function putEchoWorkflow(dir: string): void {
  put(
    dir,
    "workflows/Echo/workflow.ts",
    `export default (api) => api.workflow("Echo", {
  tasks: { ...api.chatTask("ask", ({ chat }) => "echo " + chat().at(-1).content) },
});\n`,
  );
}

Deno.test("llm ask refuses a -c/-o chat with merge-conflict markers before any request (exit 1, file:line)", async () => {
  await using t = await setup();
  put(t.dir.path, "conf.chat", CONFLICTED);
  const r = await t.run(["llm", "ask", "-c", "conf.chat", "-o", "conf.chat", "next"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, REFUSED);
  assert.equal(t.srv.requests.length, 0, "nothing sent to the model");
  assert.equal(readFileSync(join(t.dir.path, "conf.chat"), "utf8"), CONFLICTED, "file untouched");
  // -c alone, -c - (stdin), and -o alone (the new turn would follow both sides)
  const c = await t.run(["llm", "ask", "-c", "conf.chat", "next"]);
  assert.equal(c.code, 1);
  assert.match(c.stderr, REFUSED);
  const s = await t.run(["llm", "ask", "-c", "-", "next"], CONFLICTED);
  assert.equal(s.code, 1);
  assert.match(s.stderr, /^scout-ai: Merge conflict in "<stdin>".* \(<stdin>:3\)\n$/);
  const o = await t.run(["llm", "ask", "-o", "conf.chat", "next"]);
  assert.equal(o.code, 1);
  assert.match(o.stderr, REFUSED);
  assert.equal(t.srv.requests.length, 0, "nothing sent to the model");
  assert.equal(readFileSync(join(t.dir.path, "conf.chat"), "utf8"), CONFLICTED);
});

Deno.test("llm ask: the markers in a fence, or a lone ======= underline, are sent as usual", async () => {
  await using t = await setup();
  for (const [i, text] of [FENCED, UNDERLINED].entries()) {
    put(t.dir.path, "ok.chat", text);
    const r = await t.run(["llm", "ask", "-c", "ok.chat", "-o", "ok.chat", "next"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(t.srv.requests.length, i + 1);
    assert.match(readFileSync(join(t.dir.path, "ok.chat"), "utf8"), /the answer\n$/);
  }
  assert.match(JSON.stringify(t.srv.requests[0]!.body), /=======\\n/);
});

Deno.test("agent ask refuses a -c chat with merge-conflict markers before any request", async () => {
  await using t = await setup();
  put(t.dir.path, "Agent/Planner/start_chat", "system: You plan\n");
  clearAgentCache();
  put(t.dir.path, "conf.chat", CONFLICTED);
  const r = await t.run(["agent", "ask", "Planner", "-c", "conf.chat", "-o", "conf.chat", "go"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, REFUSED);
  assert.equal(t.srv.requests.length, 0);
  put(t.dir.path, "ok.chat", FENCED);
  const ok = await t.run(["agent", "ask", "Planner", "-c", "ok.chat", "go"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(t.srv.requests.length, 1);
});

Deno.test("chat parse / compile / prompt and llm prov warn of the markers with file:line and go on", async () => {
  await using t = await setup();
  put(t.dir.path, "conf.chat", CONFLICTED);
  put(t.dir.path, "ok.chat", FENCED);
  put(t.dir.path, "title.chat", UNDERLINED);
  const warning =
    /^scout-ai: warning: conf\.chat:3: merge conflict markers \(<<<<<<< \/ ======= \/ >>>>>>>\), read as text$/gm;
  const o = { env: t.env, cwd: t.dir.path };
  for (const cmd of [["chat", "parse"], ["chat", "compile"], ["chat", "prompt"], ["llm", "prov"]]) {
    const r = await runMain([...cmd, "conf.chat"], o);
    assert.equal(r.code, 0, `${cmd.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.match(warning)?.length, 1, `${cmd.join(" ")}: ${r.stderr}`);
    assert.notEqual(r.stdout, "", cmd.join(" "));
    for (const quiet of ["ok.chat", "title.chat"]) {
      const q = await runMain([...cmd, quiet], o);
      assert.equal(q.code, 0, q.stderr);
      assert.doesNotMatch(q.stderr, /merge conflict/, `${cmd.join(" ")} ${quiet}`);
    }
  }
  // parsing is unchanged: the markers stay text of the messages
  const p = await runMain(["chat", "parse", "conf.chat", "--json"], o);
  assert.match(p.stdout, /ours answer\\n=======/);
});

Deno.test("a chat task refuses a chat input with merge-conflict markers before its body runs", async () => {
  await using dir = await tempDir();
  putEchoWorkflow(dir.path);
  put(dir.path, "conf.chat", CONFLICTED);
  put(dir.path, "ok.chat", FENCED);
  const o = { cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } };
  const r = await runScout(["workflow", "task", "Echo", "ask", "--chat", "conf.chat"], o);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^scout-ai: Job "Echo\/ask\/\S+" failed: Merge conflict in the chat input \(line 3\)/,
  );
  assert.doesNotMatch(r.stdout, /echo/);
  const ok = await runScout(["workflow", "task", "Echo", "ask", "--chat", "ok.chat"], o);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /assistant:\n\necho What does this mean\?/);
});

/** The warning of `llm ask` for markers inside a message of `q.md`. */
const SENT_WARNING =
  /^scout-ai: warning: q\.md:5: merge conflict markers inside a message, sent as text$/m;

Deno.test("llm ask sends a chat that discusses a conflict (markers inside a message), with a warning (R90-2)", async () => {
  await using t = await setup();
  put(t.dir.path, "q.md", DISCUSSED_CONFLICT);
  const r = await t.run(["llm", "ask", "-c", "q.md", "-o", "q.md"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, SENT_WARNING);
  assert.equal(
    r.stderr.match(/merge conflict/g)?.length,
    1,
    "one warning for -c and -o: " + r.stderr,
  );
  assert.equal(t.srv.requests.length, 1, "the request is made");
  assert.match(JSON.stringify(t.srv.requests[0]!.body), /<<<<<<< HEAD\\nport = 8080\\n=======/);
  assert.match(readFileSync(join(t.dir.path, "q.md"), "utf8"), /the answer\n$/);
  // -c - and agent ask go on the same way
  const s = await t.run(["llm", "ask", "-c", "-", "next"], DISCUSSED_CONFLICT);
  assert.equal(s.code, 0, s.stderr);
  assert.match(s.stderr, /^scout-ai: warning: <stdin>:5: merge conflict markers inside a message/m);
  put(t.dir.path, "Agent/Planner/start_chat", "system: You plan\n");
  clearAgentCache();
  const a = await t.run(["agent", "ask", "Planner", "-c", "q.md", "go"]);
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stderr, SENT_WARNING);
  assert.equal(t.srv.requests.length, 3);
});

Deno.test("llm ask -o: a model answer quoting conflict markers is saved with them escaped, and the chat can be asked again (R90-2, R95-2)", async () => {
  await using t = await setup("Keep one side:\n\n" + CONFLICTED_TURNS + "\nThen commit.");
  const first = await t.run(["llm", "ask", "-o", "a.chat", "how do merges look?"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, "");
  const saved = readFileSync(join(t.dir.path, "a.chat"), "utf8");
  // the printer escapes the header-like line and, since R95-2, the markers: no conflict left
  assert.match(saved, /^\\<<<<<<< HEAD$/m);
  assert.match(saved, /^\\user: ours question$/m, "the printer escapes the header-like line");
  const again = await t.run(["llm", "ask", "-c", "a.chat", "-o", "a.chat", "and then?"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stderr, "");
  assert.match(JSON.stringify(t.srv.requests[1]!.body), /<<<<<<< HEAD\\nuser: ours question/);
  assert.equal(t.srv.requests.length, 2);
  assert.match(readFileSync(join(t.dir.path, "a.chat"), "utf8"), /and then\?/);
});

Deno.test("a chat task runs with a chat input that pastes a conflict into a message (R90-2)", async () => {
  await using dir = await tempDir();
  putEchoWorkflow(dir.path);
  put(dir.path, "q.md", DISCUSSED_CONFLICT);
  const o = { cwd: dir.path, env: { SCOUT_HOME: join(dir.path, "home") } };
  const r = await runScout(["workflow", "task", "Echo", "ask", "--chat", "q.md"], o);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /echo After git pull[^]*<<<<<<< HEAD\nport = 8080/);
});

Deno.test("llm ask -o: conflict markers split across a model's replies (a tool round between) are escaped; the chat is asked again (R95-2)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({
    script: [
      {
        text: "looking\n<<<<<<< HEAD",
        toolCalls: [{ name: "nosuch", arguments: {}, id: "t1" }],
      },
      { text: "=======\n>>>>>>> x\nDone." },
      { text: "second" },
      { text: "third" },
    ],
  });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const run = (q: string, more: string[] = []) =>
    runMain(["llm", "ask", ...flags, ...more, "-o", "m2.chat", q], { env, cwd: dir.path });
  const first = await run("q1");
  assert.equal(first.code, 0, first.stderr);
  const saved = readFileSync(join(dir.path, "m2.chat"), "utf8");
  assert.match(saved, /^\\<<<<<<< HEAD$/m);
  assert.match(saved, /^\\=======$/m);
  assert.match(saved, /^\\>>>>>>> x$/m);
  assert.doesNotMatch(saved, /^(<<<<<<<|=======|>>>>>>>)/m, "no unescaped marker is written");
  const second = await run("q2");
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stderr, "", "escaped markers are text, not a conflict");
  // read back as input: the model's own text goes back as it wrote it
  const third = await run("q3", ["-c", "m2.chat"]);
  assert.equal(third.code, 0, third.stderr);
  assert.equal(third.stderr, "");
  assert.equal(srv.requests.length, 4);
  const sent = JSON.stringify(srv.requests[3]!.body);
  assert.ok(sent.includes("looking\\n<<<<<<< HEAD"), sent);
  assert.ok(sent.includes("=======\\n>>>>>>> x\\nDone."));
});
