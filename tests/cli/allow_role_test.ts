/**
 * The unknown-role error names only what allows the role for the command at
 * hand, and the commands that compile the user's chat text accept what it
 * names (R72-2): `llm ask` (structured too) and `agent ask` take `--allow-role`
 * as `chat compile` does (for the question, stdin, `-c`, `-i`, `--inline`'s
 * `-i`); the agent's own start chat, which the flag does not reach, names the
 * config entry only.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { clearAgentCache } from "../../src/agent/load.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { put } from "../support/files.ts";

const QUESTION = "fix this\nmake: *** Error 1";
/** The role and content of each message of `--dry-run --json`. */
function roles(stdout: string): [string, unknown][] {
  const out = JSON.parse(stdout) as { messages: { role: string; content: unknown }[] };
  return out.messages.map((m) => [m.role, m.content]);
}

const HINT = '(allow it with config "allow_roles" or --allow-role)';

Deno.test("R72-2: llm ask (--format json too) and agent ask accept the --allow-role their error names", async () => {
  await using d = await tempDir();
  put(d.path, "Agent/Pl/start_chat", "system: you plan\n");
  put(d.path, "c.chat", "user: hi\n\nmake: done\n");
  clearAgentCache();
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path } };
  for (const cmd of [["llm", "ask"], ["llm", "ask", "--format", "json"], ["agent", "ask", "Pl"]]) {
    const bad = await runMain([...cmd, "--dry-run", QUESTION], o);
    assert.equal(bad.code, 1, bad.stderr);
    assert.equal(
      bad.stderr,
      `scout-ai: Unknown role "make": not a chat role ${HINT} (<question>:2)\n`,
    );
    const ok = await runMain([...cmd, "--dry-run", "--json", "--allow-role", "make", QUESTION], o);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(roles(ok.stdout).at(-1), ["make", "*** Error 1"]);
  }
  // stdin and -c, a comma list and a repeated flag
  const piped = await runMain(["llm", "ask", "--dry-run", "--allow-role", "todo,make", "-"], {
    ...o,
    stdin: `x\n\n${QUESTION}\n`,
  });
  assert.equal(piped.code, 0, piped.stderr);
  const chat = await runMain(
    [
      "llm",
      "ask",
      "--dry-run",
      "--json",
      "--allow-role",
      "todo",
      "--allow-role",
      "make",
      "-c",
      "c.chat",
    ],
    o,
  );
  assert.equal(chat.code, 0, chat.stderr);
  assert.deepEqual(roles(chat.stdout), [["user", "hi"], ["make", "done"]]);
  // --inline: the -i chats
  put(d.path, "f.py", "x = 1\n# ask: what?\n");
  const inline = ["llm", "ask", "--inline", "f.py", "-i", "c.chat", "--dry-run"];
  assert.match(
    (await runMain(inline, o)).stderr,
    /Unknown role "make".*--allow-role\) \(c\.chat:3\)/,
  );
  assert.equal((await runMain([...inline, "--allow-role", "make"], o)).code, 0);
  const help = await runMain(["llm", "ask", "--help"], o);
  assert.match(help.stdout, /--allow-role <roles>/);
});

Deno.test("R72-2: an unknown role in an agent's start_chat names the config entry only", async () => {
  await using d = await tempDir();
  put(d.path, "Agent/Mk/start_chat", "system: x\n\nmake: y\n");
  clearAgentCache();
  const o = { cwd: d.path, env: { SCOUT_HOME: join(d.path, "home"), HOME: d.path } };
  const r = await runMain(["agent", "ask", "Mk", "--dry-run", "--allow-role", "make", "hi"], o);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    'scout-ai: Unknown role "make": not a chat role (allow it with config "allow_roles") ' +
      `(${join(d.path, "Agent/Mk/start_chat")}:3)\n`,
  );
});
