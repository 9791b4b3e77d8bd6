/**
 * Ruby's option parser (SOPT) takes a long name after one dash (`-chat FILE`,
 * `-model X`, `-dry_run`) and `-x=value`: scripts written for the Ruby
 * scout-ai read the same here (R158-4). Before, commander read `-chat` as
 * `-c hat` (a file `hat` got the turn), `-model gpt-x` as the model `odel`
 * and `-m=gpt-x` as the model `=gpt-x`. A token that is no option is left
 * as it is: `-5` is a word of the question.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { put } from "../support/files.ts";

async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer({ fallback: () => ({ text: "the answer" }) });
  const home = join(dir.path, "home");
  put(home, "etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: ep-model\n`);
  put(dir.path, "Agent/Helper/start_chat", "system: You help\n");
  clearAgentCache();
  const env = { SCOUT_HOME: home, OPENAI_API_KEY: "sk-x" };
  return {
    dir,
    srv,
    path: (f: string) => join(dir.path, f),
    run: (args: string[]) => runMain(args, { env, cwd: dir.path }),
    /** The model and the last user text of the last request. */
    sent: () => {
      const body = bodyOf(srv.requests.at(-1)?.body);
      return { model: body.model, text: JSON.stringify(body.messages ?? body.input) };
    },
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function bodyOf(body: unknown): { model?: unknown; messages?: unknown; input?: unknown } {
  return (body ?? {}) as { model?: unknown; messages?: unknown; input?: unknown };
}

const ASK = ["--no-cache", "--no-stream"];

Deno.test("llm ask -model X / -m=X / -endpoint=E / -e E: the model and endpoint, not a question word (R158-4)", async () => {
  await using t = await setup();
  const cases: [string[], string][] = [
    [["-endpoint", "ep", "-model", "gpt-x", "hi"], "gpt-x"],
    [["-endpoint", "ep", "-m=gpt-y", "hi"], "gpt-y"],
    [["-endpoint=ep", "-model=gpt-z", "hi"], "gpt-z"],
    [["-e=ep", "hi"], "ep-model"],
  ];
  for (const [flags, model] of cases) {
    const r = await t.run(["llm", "ask", ...ASK, ...flags]);
    // before: `-model gpt-x` sent the model "odel" and the question "gpt-x hi"
    assert.equal(r.code, 0, `${flags.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "the answer\n");
    const sent = t.sent();
    assert.equal(sent.model, model, flags.join(" "));
    assert.match(sent.text, /"hi"/);
    assert.doesNotMatch(sent.text, /gpt|odel|ndpoint/);
  }
});

for (const cmd of [["llm", "ask"], ["agent", "ask", "Helper"]]) {
  Deno.test(`${cmd.join(" ")} -chat FILE continues FILE; no file "hat" is made (R158-4)`, async () => {
    await using t = await setup();
    put(t.dir.path, "c2.chat", "user: first\n\nassistant: one\n");
    const r = await t.run([...cmd, ...ASK, "-e", "ep", "-chat", "c2.chat", "q"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(t.path("hat")), false);
    assert.match(
      readFileSync(t.path("c2.chat"), "utf8"),
      /assistant: one\n\nuser:\s*q\n[\s\S]*the answer/,
    );
    assert.match(t.sent().text, /first[\s\S]*one[\s\S]*"q"/);
    assert.doesNotMatch(t.sent().text, /c2\.chat/);
  });
}

Deno.test("llm ask -dry_run / -dry-run / -chat=FILE: Ruby's one-dash spellings; -5 is a word (R158-4)", async () => {
  await using t = await setup();
  put(t.dir.path, "c.chat", "user: before\n");
  for (const flags of [["-dry_run"], ["-dry-run"], ["--dry_run"]]) {
    const r = await t.run(["llm", "ask", ...flags, "-chat=c.chat", "hello"]);
    // before: exit 2, "unknown option '-ry_run'" (-d, then -ry_run)
    assert.equal(r.code, 0, `${flags}: ${r.stderr}`);
    assert.equal(r.stdout, "user:\n\nbefore\n\nuser:\n\nhello\n");
  }
  assert.equal(readFileSync(t.path("c.chat"), "utf8"), "user: before\n");
  // a question word that is no option stays a word, as today
  const word = await t.run(["llm", "ask", "-dry_run", "-5", "degrees"]);
  assert.equal(word.code, 0, word.stderr);
  assert.equal(word.stdout, "user:\n\n-5 degrees\n");
  // after --, -chat is a word too
  const after = await t.run(["llm", "ask", "-dry_run", "--", "-chat", "x"]);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.stdout, "user:\n\n-chat x\n");
  assert.equal(t.srv.requests.length, 0);
});
